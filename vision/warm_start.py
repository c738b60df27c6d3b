"""Going on training an exported network (torch, training only).

The shipped networks are ONNX files; the renders they were trained on are not kept. A
session that renders new training scenes can still add them to what the earlier renders
taught by training the exported network further instead of starting from random weights
(``--init`` of ``vision.net_training`` and ``vision.board_net_training``).

ONNX export (evaluation mode) folds every batch norm into the convolution before it, so
a convolution takes the folded weights and bias and its batch norm becomes the identity
(scale 1, shift the folded bias, mean 0, variance 1 - eps) with its statistics frozen:
:func:`freeze_batch_norm` keeps those layers in evaluation mode while the rest trains.
"""

from __future__ import annotations

import hashlib
import json
import os


def load_exported(model, path: str) -> None:
    """Set ``model``'s weights from the exported network ``path`` of the same layout.

    Convolutions are paired in order (the graph's order of computation is the modules'
    order of definition in our networks); linear layers by name (``fc.weight``), or, when
    export turned one into a matrix product, by the transposed shape. Raises ``ValueError``
    naming the first layer that does not fit."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(path).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    onnx_convs = [n for n in graph.node if n.op_type == "Conv"]
    mods = list(model.modules())
    convs = [(m, mods[k + 1] if k + 1 < len(mods) and isinstance(mods[k + 1], nn.BatchNorm2d) else None)
             for k, m in enumerate(mods) if isinstance(m, nn.Conv2d)]
    if len(onnx_convs) != len(convs):
        raise ValueError(f"{path}: {len(onnx_convs)} convolutions, the model has {len(convs)}")

    def put(param, value, what):
        if tuple(value.shape) != tuple(param.shape):
            raise ValueError(f"{path}: {what} is {tuple(value.shape)}, the model's {tuple(param.shape)}")
        param.copy_(torch.from_numpy(value.copy()))

    with torch.no_grad():
        for node, (conv, bn) in zip(onnx_convs, convs):
            put(conv.weight, init[node.input[1]], f"convolution {node.input[1]}")
            bias = init[node.input[2]] if len(node.input) > 2 else None
            if bn is not None:
                bn.weight.fill_(1.0)
                put(bn.bias, bias, f"bias {node.input[2]}")
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            elif conv.bias is not None:
                put(conv.bias, bias, f"bias {node.input[2]}")
        matmuls = [init[n.input[1]] for n in graph.node if n.op_type == "MatMul" and n.input[1] in init]
        for name, lin in ((n, m) for n, m in model.named_modules() if isinstance(m, nn.Linear)):
            if f"{name}.weight" in init:
                put(lin.weight, init[f"{name}.weight"], f"{name}.weight")
            else:
                fits = [w for w in matmuls if w.T.shape == tuple(lin.weight.shape)]
                if len(fits) != 1:
                    raise ValueError(f"{path}: no single matrix fits the layer {name}")
                put(lin.weight, fits[0].T, f"{name}.weight")
            if lin.bias is not None:
                put(lin.bias, init[f"{name}.bias"], f"{name}.bias")
    model.frozen_bn = True


def freeze_batch_norm(model) -> None:
    """Batch norms in evaluation mode (statistics fixed) for a model started by
    :func:`load_exported`, whose batch norms hold no statistics of their own; call it
    after every ``model.train()``. Does nothing to a model trained from scratch."""
    from torch import nn

    if getattr(model, "frozen_bn", False):
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()


def init_record(path: str) -> dict:
    """What a network trained further started from, for its metadata: the file's md5, the
    metadata file beside it (``X.json`` for ``X.onnx``; its own ``init`` goes on back) and
    its list of training images (``X_files.txt``), each ``None`` when missing."""
    base = os.path.splitext(path)[0]
    with open(path, "rb") as f:
        rec = {"file": os.path.relpath(path), "md5": hashlib.md5(f.read()).hexdigest()}
    try:
        with open(base + ".json", encoding="utf-8") as f:
            rec["meta"] = json.load(f)
    except (OSError, ValueError):
        rec["meta"] = None
    try:
        with open(base + "_files.txt", encoding="utf-8") as f:
            rec["files"] = f.read().split()
    except OSError:
        rec["files"] = None
    return rec
