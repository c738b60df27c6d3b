"""The convolutional piece network as shipped: run without torch, right on committed images."""

import os
import subprocess
import sys

import numpy as np
import pytest

from vision.assign import assign_pieces
from vision.net import NET_FILE, PieceNet, PieceNetError
from vision.net_training import gather, gather_geometry
from vision.settings import VisionSettings

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
#: the engines that run networks (vision.dnn): onnxruntime is a dependency, cv2.dnn the fallback
ENGINES = ["cv2.dnn", "onnxruntime"]
TEST_DATA = os.path.join(ROOT, "tests", "data")


def test_shipped_network_runs_without_torch():
    # a fresh interpreter: reading a photo's cells must not pull in torch (a training-only extra)
    code = (
        "import sys, cv2, numpy as np\n"
        "from vision.features import features_from_work, FEATURE_INDEX\n"
        "from vision.geometry import cell_grid\n"
        "from vision.settings import VisionSettings\n"
        "from tests.vision.synthetic import drawn_board\n"
        "img, centres = drawn_board('rings', tilt=0.3, seed=1)\n"
        "H, _ = cv2.findHomography(cell_grid(), centres)\n"
        "f = features_from_work(img, H, VisionSettings())\n"
        "net = f[:, FEATURE_INDEX['net_occupied']:FEATURE_INDEX['net_hollow'] + 1]\n"
        "assert net.shape == (16, 5) and np.isfinite(net).all() and np.abs(net).max() > 0\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert os.path.getsize(NET_FILE) < 3_000_000


def test_network_reads_the_committed_test_images():
    """Board from truth, the network alone with the joint assignment, on the 11 committed
    images with a board (176 visible cells; never used in training). Measured with the
    shipped network (2026-11-30, session 5, the session-4 recipe, ``--warp 0``): cells
    fully right 85.8 % (151; occupancy 172; 150 on the crops cut since session 5's one
    Jacobian function, session 6); the one trained with moving crops (not
    shipped: the watch lost placements with it) 156, the session-4 network 146 (83.0 %,
    occupancy 173), the session-3 one 156: seeds alone move this by a few cells. The floor
    is 83 % (the shipped network clears it by 4 cells), so a retrained network has a few
    cells of room and a broken one fails."""
    net = PieceNet()
    crops, fronts, Y, paths = gather([TEST_DATA], VisionSettings(), 1, progress=False, stretch=net.has_geometry)
    geoms = gather_geometry(paths, VisionSettings())
    assert len(paths) == 11
    occ_ok = cells_ok = cells = 0
    for c, f, g, y in zip(crops[:, 0], fronts[:, 0], geoms[:, 0], Y):
        lg = net.logits(c, f, g)
        pred = assign_pieces(lg[:, 0] > 0, 1 / (1 + np.exp(-lg[:, 1:])))
        for i in range(16):
            if y[i, 0] < 0:
                continue
            truth = None if y[i, 0] == 0 else int(sum(int(y[i, 1 + b]) << b for b in range(4)))
            cells += 1
            occ_ok += (pred[i] is None) == (truth is None)
            cells_ok += pred[i] == truth
    assert occ_ok / cells >= OCCUPANCY_MIN, occ_ok / cells
    assert cells_ok / cells >= CELLS_MIN, cells_ok / cells


OCCUPANCY_MIN = 0.96
CELLS_MIN = 0.83


def test_corrupt_network_file_gives_a_clear_error(tmp_path):
    bad = tmp_path / "piece_net.onnx"
    with open(NET_FILE, "rb") as f:
        bad.write_bytes(f.read()[:2000])
    with pytest.raises(PieceNetError, match="piece_net.onnx"):
        PieceNet(str(bad))
    with pytest.raises(PieceNetError, match="not found"):
        PieceNet(str(tmp_path / "missing.onnx"))


def test_default_models_average_their_score_with_the_network():
    from vision.attributes import MODEL_NAMES, models_from_dict, with_net
    from vision.features import FEATURE_NAMES
    from vision.net import NET_FEATURE_NAMES

    dicts = VisionSettings().attributes
    models = models_from_dict(dicts)
    X = np.random.default_rng(0).normal(0, 1, (16, len(FEATURE_NAMES)))
    for name in MODEL_NAMES:
        m = models[name]
        w = dicts[name]["extra"]["net_weight"]
        # the base models never read the network's logits (it was trained on their images)
        assert not set(m.base.features) & set(NET_FEATURE_NAMES)
        expected = (1 - w) * m.base.decision(X, FEATURE_NAMES) + w * X[:, FEATURE_NAMES.index(f"net_{name}")]
        assert np.allclose(m.decision(X, FEATURE_NAMES), expected)
    # averaging again (after retraining the network) does not stack a second time
    assert with_net(with_net(dicts, 0.5), 0.5) == with_net(dicts, 0.5)


def test_a_network_without_the_front_input_is_read_once_and_still_reads(monkeypatch):
    # networks before session 4 take the crops alone: the reader tells them by the graph's
    # inputs, not by a failed trial run and a second reading of the file. The committed
    # network is a small one of that format, exported with torch (vision.net_training
    # .build_model(width=4, embed=8, front=False), seed 0) with its logits on these crops
    import vision.dnn
    import vision.net

    data = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
    path = os.path.join(data, "piece_net_without_front.onnx")
    ref = np.load(os.path.join(data, "piece_net_without_front_logits.npy"))
    crops = np.random.default_rng(0).integers(0, 256, (16, 64, 32, 3), dtype=np.uint8)
    for engine in ENGINES:
        reads = []

        def counted(p, engine=engine):
            reads.append(p)
            return vision.dnn.OnnxNet(p, engine)

        monkeypatch.setattr(vision.net, "OnnxNet", counted)
        old = PieceNet(path)
        assert len(reads) == 1 and not old.has_front and not old.has_geometry
        np.testing.assert_allclose(old.logits(crops, np.ones((16, 16))), ref, atol=1e-4)
        assert PieceNet().has_front


def test_both_engines_give_the_shipped_networks_outputs():
    # ONNX Runtime where installed, cv2.dnn otherwise: the same numbers either way
    from vision.board_net import INPUT_H, INPUT_W, MODEL_PATH
    from vision.dnn import OnnxNet

    rng = np.random.default_rng(1)
    feeds = {
        MODEL_PATH: {"image": rng.random((1, 3, INPUT_H, INPUT_W), np.float32)},
        NET_FILE: {"crops": rng.random((16, 3, 64, 32), np.float32) - 0.5,
                   "front": rng.random((1, 16, 16), np.float32)},
    }
    for path, feed in feeds.items():
        assert OnnxNet(path).engine == "onnxruntime"  # the faster engine runs by default
        outs = []
        for engine in ENGINES:
            net = OnnxNet(path, engine)
            assert sorted(net.inputs) == sorted(feed)
            outs.append(net.run(feed))
        for out in outs[1:]:
            np.testing.assert_allclose(out, outs[0], atol=1e-4)


@pytest.mark.parametrize("content", [b"", b"not a network at all" * 100])
def test_a_file_that_is_no_network_is_one_clear_line_on_either_engine(tmp_path, content):
    from vision.dnn import NetworkError, OnnxNet

    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    for engine in ENGINES:
        with pytest.raises(NetworkError) as e:
            OnnxNet(str(path), engine)
        assert "\n" not in str(e.value) and len(str(e.value)) <= 200



def test_a_network_told_the_cells_geometry_needs_it_and_reads_with_it(monkeypatch):
    # session 6: a network may take a third input, each cell's geometry
    # (vision.crops.cell_geometry), and then reads crops stretched along the vertical near
    # the point under the camera. The committed one is small (vision.net_training
    # .build_model(width=4, embed=8, geometry=3), seed 0), with its logits on these inputs.
    # The shipped network does not take it (not better on kept-aside images)
    import vision.net
    from vision.features import FEATURE_INDEX, features_from_work
    from vision.geometry import cell_grid
    from tests.vision.synthetic import drawn_board

    import cv2

    path = os.path.join(TEST_DATA, "piece_net_with_geometry.onnx")
    net = PieceNet(path)
    assert net.has_front and net.has_geometry and not PieceNet().has_geometry
    crops = np.random.default_rng(0).integers(0, 256, (16, 64, 32, 3), dtype=np.uint8)
    with pytest.raises(PieceNetError, match="geometry"):
        net.logits(crops, np.ones((16, 16)))
    geom = np.tile(np.float32([0.1, 0.95, 0.3]), (16, 1))
    ref = np.load(os.path.join(TEST_DATA, "piece_net_with_geometry_logits.npy"))
    np.testing.assert_allclose(net.logits(crops, np.ones((16, 16)), geom), ref, atol=1e-4)
    # the whole piece path feeds it the geometry and the stretched crops
    monkeypatch.setattr(vision.net, "_default", net)
    img, centres = drawn_board("rings", tilt=0.3, seed=1)
    H, _ = cv2.findHomography(cell_grid(), centres)
    f = features_from_work(img, H, VisionSettings())
    logits = f[:, FEATURE_INDEX["net_occupied"]:FEATURE_INDEX["net_hollow"] + 1]
    assert logits.shape == (16, 5) and np.isfinite(logits).all()


def test_several_networks_read_as_one_average_their_logits():
    # vision.net.PieceNets: networks trained on different renders, their logits averaged
    from vision.net import NET_FILE, PieceNets, read_nets

    old = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "piece_net_without_front.onnx")
    crops = np.random.default_rng(1).integers(0, 256, (16, 64, 32, 3), dtype=np.uint8)
    front = np.eye(16)[::-1]
    both = read_nets(f"{NET_FILE}+{old}")
    assert isinstance(both, PieceNets) and both.has_front and not both.has_geometry
    np.testing.assert_allclose(both.logits(crops, front),
                               0.5 * (PieceNet().logits(crops, front) + PieceNet(old).logits(crops, front)), atol=1e-9)
    assert isinstance(read_nets(NET_FILE), PieceNet)
    # a network that reads stretched crops cannot be averaged with one that does not
    with pytest.raises(PieceNetError, match="cannot be averaged"):
        PieceNets([NET_FILE, os.path.join(TEST_DATA, "piece_net_with_geometry.onnx")])
    with pytest.raises(PieceNetError, match="not found"):
        read_nets(f"{NET_FILE}+missing.onnx")


def test_the_log_loss_bench_scores_a_network_and_a_pair_and_refuses_a_missing_file():
    bench = os.path.join(ROOT, "bench", "net_logloss.py")
    p = subprocess.run([sys.executable, bench, TEST_DATA, NET_FILE, f"{NET_FILE}+{NET_FILE}"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stdout.splitlines() if "log loss" in line]
    assert len(lines) == 2
    # a network averaged with itself is the network
    assert lines[0].split(": ", 1)[1] == lines[1].split(": ", 1)[1]
    p = subprocess.run([sys.executable, bench, TEST_DATA, "missing.onnx"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "not found" in p.stderr and "Traceback" not in p.stderr


def test_with_a_partner_network_the_reading_averages_both_and_the_set_size_judge_hears_the_lead(monkeypatch):
    # vision.net.NET_FILES: a partner trained on other renders reads beside the shipped
    # network; every window of the reading averages the two, while the set-size judges,
    # fitted to the shipped network's logits, are given that network's alone
    import vision.net
    from vision.features import FEATURE_INDEX, features_from_work
    from vision.geometry import cell_grid
    from vision.net import NET_FILE, PieceNets
    from vision.recognizer import Recognizer
    from tests.vision.synthetic import drawn_board

    import cv2

    partner = os.path.join(TEST_DATA, "piece_net_without_front.onnx")
    img, centres = drawn_board("rings", tilt=0.5, seed=3)
    H, _ = cv2.findHomography(cell_grid(), centres)
    typical = VisionSettings()
    typical.pieces.set_size = "typical"
    k = slice(FEATURE_INDEX["net_occupied"], FEATURE_INDEX["net_hollow"] + 1)

    def read(net, settings=typical):
        monkeypatch.setattr(vision.net, "_default", net)
        return features_from_work(img, H, settings)[:, k]

    lead, other, both = PieceNet(), PieceNet(partner), PieceNets([NET_FILE, partner])
    np.testing.assert_allclose(read(both), 0.5 * (read(lead) + read(other)), atol=1e-6)

    from vision import set_size

    heard = []
    board_statistics = set_size.board_statistics
    monkeypatch.setattr(set_size, "board_statistics", lambda *a: heard.append(a) or board_statistics(*a))
    large = os.path.join(os.path.dirname(TEST_DATA), "data-large-set", "gigamic.jpg")
    judged, told = {}, {}
    for name, net in (("lead", lead), ("partner", other), ("both", both)):
        monkeypatch.setattr(vision.net, "_default", net)
        heard.clear()
        judged[name] = Recognizer(VisionSettings()).analyze(cv2.imread(large)).large_set
        told[name] = heard[-1]
    # the older network alone would not judge this set large; beside the lead it is not asked
    assert judged == {"lead": True, "partner": False, "both": True}
    # what the large-set judge is told beside the partner is the lead's own reading, to the digit
    for a, b in zip(told["both"], told["lead"]):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(told["partner"][1], told["lead"][1])
