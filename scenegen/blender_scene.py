"""Builds a scene dict (see ``scenegen.sampling``) in Blender and renders it. Needs ``bpy``.

The render is undistorted, linear (EXR) and larger than the final image by a margin on
each side; ``scenegen.post`` warps it through the lens model and makes it look like a
webcam frame.
"""

from __future__ import annotations

import math
import os

import bpy  # noqa: I001  (bpy first: it makes bmesh and mathutils importable)
import bmesh
import numpy as np
from mathutils import Matrix, Vector

from . import textures
from .catalog import board_for, piece_set_for


def srgb_to_linear(c):
    return tuple(((v / 12.92) if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4) for v in c)


def rgba(c):
    return (*srgb_to_linear(c), 1.0)


# ---------------------------------------------------------------- scene reset / render
def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    for coll in (bpy.data.meshes, bpy.data.materials, bpy.data.images, bpy.data.lights, bpy.data.cameras):
        for item in list(coll):
            coll.remove(item)


def setup_render(width: int, height: int, samples: int, threads: int = 2):
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    cy = sc.cycles
    cy.device = "CPU"
    cy.samples = samples
    cy.use_adaptive_sampling = True
    cy.adaptive_threshold = 0.05
    cy.use_denoising = True
    for attr, value in (("denoiser", "OPENIMAGEDENOISE"), ("denoising_prefilter", "FAST"), ("denoising_quality", "FAST"),
                        ("denoising_input_passes", "RGB_ALBEDO_NORMAL")):
        try:
            setattr(cy, attr, value)
        except (TypeError, AttributeError):
            pass
    cy.max_bounces = 4
    cy.diffuse_bounces = 2
    cy.glossy_bounces = 2
    cy.transmission_bounces = 4
    cy.transparent_max_bounces = 4
    cy.caustics_reflective = False
    cy.caustics_refractive = False
    cy.use_light_tree = True
    sc.render.threads_mode = "FIXED"
    sc.render.threads = threads
    sc.render.resolution_x = width
    sc.render.resolution_y = height
    sc.render.resolution_percentage = 100
    sc.render.use_persistent_data = False
    sc.render.image_settings.file_format = "OPEN_EXR"
    sc.render.image_settings.color_depth = "16"
    sc.render.image_settings.exr_codec = "ZIP"
    sc.view_settings.view_transform = "Standard"
    sc.render.film_transparent = False


def render_to(path: str):
    bpy.context.scene.render.filepath = path
    bpy.ops.render.render(write_still=True)


# ---------------------------------------------------------------- meshes
def _obj(name, mesh, mat=None, smooth=False):
    if smooth:
        mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    if mat is not None:
        if isinstance(mat, (list, tuple)):
            for m in mat:
                mesh.materials.append(m)
        else:
            mesh.materials.append(mat)
    ob = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def lathe(name, strips, segments=48):
    """Surface of revolution about z. ``strips``: list of polylines [(r, z), ...]; each
    strip is shaded smooth on its own, so corners between strips stay sharp."""
    verts, faces = [], []
    for strip in strips:
        rings = []
        for r, z in strip:
            if r < 1e-7:
                rings.append([len(verts)])
                verts.append((0.0, 0.0, z))
            else:
                ring = []
                for k in range(segments):
                    a = 2 * math.pi * k / segments
                    ring.append(len(verts))
                    verts.append((r * math.cos(a), r * math.sin(a), z))
                rings.append(ring)
        for a_ring, b_ring in zip(rings, rings[1:]):
            if len(a_ring) == 1 and len(b_ring) == 1:
                continue
            for k in range(segments):
                k2 = (k + 1) % segments
                if len(a_ring) == 1:
                    faces.append((a_ring[0], b_ring[k2], b_ring[k]))
                elif len(b_ring) == 1:
                    faces.append((a_ring[k], a_ring[k2], b_ring[0]))
                else:
                    faces.append((a_ring[k], a_ring[k2], b_ring[k2], b_ring[k]))
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    me.validate()
    me.polygons.foreach_set("use_smooth", [True] * len(me.polygons))
    return me


def _arc(cx, cz, r, a0, a1, n=4):
    return [(cx + r * math.cos(math.radians(a0 + (a1 - a0) * i / n)), cz + r * math.sin(math.radians(a0 + (a1 - a0) * i / n))) for i in range(n + 1)]


def round_piece_strips(R, h, hollow, hole_r, hole_depth, groove, bevel):
    b = bevel
    strips = [[(0, 0), (R - b, 0)]]
    side = _arc(R - b, b, b, -90, 0, 3)
    if groove:
        gz, gw, gd = h * 0.5, 0.0011, 0.0011
        strips.append(side + [(R, gz - gw)])
        strips.append([(R, gz - gw), (R - gd, gz - gw * 0.4), (R - gd, gz + gw * 0.4), (R, gz + gw)])
        strips.append([(R, gz + gw)] + _arc(R - b, h - b, b, 0, 90, 3))
    else:
        strips.append(side + _arc(R - b, h - b, b, 0, 90, 3))
    if hollow:
        b2 = min(b, 0.0012)
        strips.append([(R - b, h), (hole_r + b2, h)])
        cup = _arc(hole_r + b2, h - b2, b2, 90, 180, 3)
        bottom = h - hole_depth
        cup += [(hole_r, bottom + hole_r * 0.35)] + _arc(hole_r - hole_r * 0.35, bottom + hole_r * 0.35, hole_r * 0.35, 0, -90, 3)[1:]
        cup += [(0, bottom)]
        strips.append(cup)
    else:
        strips.append([(R - b, h), (0, h)])
    return strips


def box_mesh(name, sx, sy, z0, z1):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    for v in bm.verts:
        v.co.x *= sx
        v.co.y *= sy
        v.co.z = z0 if v.co.z < 0 else z1
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    return me


def bake_modifiers(ob):
    dg = bpy.context.evaluated_depsgraph_get()
    me = bpy.data.meshes.new_from_object(ob.evaluated_get(dg))
    ob.modifiers.clear()
    old = ob.data
    ob.data = me
    if old.users == 0:
        bpy.data.meshes.remove(old)
    return me


def square_piece_mesh(name, s, h, hollow, hole_r, hole_depth, groove, bevel):
    parts = []
    if groove:
        gz, gw, gd = h * 0.5, 0.0011, 0.0011
        parts = [(s, 0, gz - gw), (s - 2 * gd, gz - gw - 0.0005, gz + gw + 0.0005), (s, gz + gw, h)]
    else:
        parts = [(s, 0, h)]
    bm = bmesh.new()
    for side, z0, z1 in parts:
        tmp = box_mesh("tmp", side, side, z0, z1)
        bm.from_mesh(tmp)
        bpy.data.meshes.remove(tmp)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    ob = _obj(name + "-build", me)
    bv = ob.modifiers.new("bevel", "BEVEL")
    bv.width = bevel
    bv.segments = 2
    bv.limit_method = "ANGLE"
    if hollow:
        cutter = _obj(name + "-cut", lathe(name + "-cutm", [[(0, h - hole_depth), (hole_r, h - hole_depth), (hole_r, h + 0.01), (0, h + 0.01)]], 32))
        cutter.hide_render = True
        bo = ob.modifiers.new("cup", "BOOLEAN")
        bo.operation = "DIFFERENCE"
        bo.solver = "EXACT"
        bo.object = cutter
    out = bake_modifiers(ob)
    bpy.data.objects.remove(ob)
    if hollow:
        m = cutter.data
        bpy.data.objects.remove(cutter)
        bpy.data.meshes.remove(m)
    return out


def capsule_mesh(name, length, r, segments=20):
    n = 6
    strip = [(r * math.cos(math.radians(-90 + 90 * i / n)), -length / 2 + r * math.sin(math.radians(-90 + 90 * i / n))) for i in range(n + 1)]
    strip += [(r * math.cos(math.radians(90 * i / n)), length / 2 + r * math.sin(math.radians(90 * i / n))) for i in range(n + 1)]
    return lathe(name, [strip], segments)


def rounded_prism(name, size, z0, z1, radius, chamfer=0.0015, seg=8):
    """A square slab with rounded vertical corners and a chamfered top edge; material 0 on
    the top (with UVs spanning the board), material 1 elsewhere."""
    h = size / 2
    outline = []
    for cx, cy, a0 in ((h - radius, h - radius, 0), (-h + radius, h - radius, 90), (-h + radius, -h + radius, 180), (h - radius, -h + radius, 270)):
        for i in range(seg + 1):
            a = math.radians(a0 + 90 * i / seg)
            outline.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    n = len(outline)
    # inset ring: the outline pulled towards the centre by the chamfer
    inset = []
    for x, y in outline:
        d = math.hypot(x, y)
        inset.append((x * (1 - chamfer / max(d, 1e-9) * 1.0), y * (1 - chamfer / max(d, 1e-9) * 1.0)))
    verts = [(x, y, z0) for x, y in outline] + [(x, y, z1 - chamfer) for x, y in outline] + [(x, y, z1) for x, y in inset]
    faces = [tuple(range(n - 1, -1, -1))]
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j, n + i))
        faces.append((n + i, n + j, 2 * n + j, 2 * n + i))
    faces.append(tuple(range(2 * n, 3 * n)))
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    me.validate()
    uv = me.uv_layers.new(name="UVMap")
    for poly in me.polygons:
        poly.material_index = 0 if poly.index == len(faces) - 1 else 1
        for li in poly.loop_indices:
            co = me.vertices[me.loops[li].vertex_index].co
            uv.data[li].uv = (co.x / size + 0.5, co.y / size + 0.5)
    return me


# ---------------------------------------------------------------- materials
def _mat(name):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    nt = m.node_tree
    for nd in list(nt.nodes):
        nt.nodes.remove(nd)
    out = nt.nodes.new("ShaderNodeOutputMaterial")
    bsdf = nt.nodes.new("ShaderNodeBsdfPrincipled")
    nt.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    return m, nt, bsdf


def _set(bsdf, key, value):
    for k in (key, key.replace("Specular IOR Level", "Specular")):
        if k in bsdf.inputs:
            bsdf.inputs[k].default_value = value
            return


def plain_material(name, rgb, rough=0.5, metallic=0.0, coat=0.0, bump=0.0, bump_scale=800.0):
    m, nt, bsdf = _mat(name)
    _set(bsdf, "Base Color", rgba(rgb))
    _set(bsdf, "Roughness", rough)
    _set(bsdf, "Metallic", metallic)
    if coat:
        _set(bsdf, "Coat Weight", coat)
    if bump:
        tc = nt.nodes.new("ShaderNodeTexCoord")
        nz = nt.nodes.new("ShaderNodeTexNoise")
        nz.inputs["Scale"].default_value = bump_scale
        nz.inputs["Detail"].default_value = 4
        nt.links.new(tc.outputs["Object"], nz.inputs["Vector"])
        bp = nt.nodes.new("ShaderNodeBump")
        bp.inputs["Strength"].default_value = bump
        bp.inputs["Distance"].default_value = 0.0005
        nt.links.new(nz.outputs["Fac"], bp.inputs["Height"])
        nt.links.new(bp.outputs["Normal"], bsdf.inputs["Normal"])
    return m


def wood_material(name, light_rgb, dark_rgb, seed, grain=(1.0, 1.0, 10.0), ring_scale=60.0, rough=0.5,
                  contrast=1.0, coat=0.0, per_object=True, extra_mask=None):
    """Procedural wood: streaky noise and distorted ring bands along the grain axis.

    ``grain``: how much each object axis is compressed (large = grain runs along it).
    ``extra_mask``: optional (image, rgb, rough) painted over the wood through the UVs.
    """
    m, nt, bsdf = _mat(name)
    rs = np.random.default_rng(seed)
    tc = nt.nodes.new("ShaderNodeTexCoord")
    mp = nt.nodes.new("ShaderNodeMapping")
    mp.inputs["Scale"].default_value = (ring_scale / grain[0], ring_scale / grain[1], ring_scale / grain[2])
    mp.inputs["Location"].default_value = tuple(float(v) for v in rs.uniform(-50, 50, 3))
    mp.inputs["Rotation"].default_value = (0.0, 0.0, float(rs.uniform(-0.1, 0.1)))
    vec = tc.outputs["Object"]
    if per_object:
        oi = nt.nodes.new("ShaderNodeObjectInfo")
        mul = nt.nodes.new("ShaderNodeVectorMath")
        mul.operation = "SCALE"
        mul.inputs["Scale"].default_value = 7.3
        comb = nt.nodes.new("ShaderNodeCombineXYZ")
        nt.links.new(oi.outputs["Random"], comb.inputs["X"])
        nt.links.new(oi.outputs["Random"], comb.inputs["Y"])
        nt.links.new(comb.outputs["Vector"], mul.inputs[0])
        add = nt.nodes.new("ShaderNodeVectorMath")
        add.operation = "ADD"
        nt.links.new(tc.outputs["Object"], add.inputs[0])
        nt.links.new(mul.outputs["Vector"], add.inputs[1])
        vec = add.outputs["Vector"]
    nt.links.new(vec, mp.inputs["Vector"])
    wave = nt.nodes.new("ShaderNodeTexWave")
    wave.wave_type = "RINGS"
    wave.rings_direction = "Z"
    wave.inputs["Scale"].default_value = 0.6
    wave.inputs["Distortion"].default_value = 2.5
    wave.inputs["Detail"].default_value = 2.0
    wave.inputs["Detail Scale"].default_value = 1.5
    nt.links.new(mp.outputs["Vector"], wave.inputs["Vector"])
    nz = nt.nodes.new("ShaderNodeTexNoise")
    nz.inputs["Scale"].default_value = 1.2
    nz.inputs["Detail"].default_value = 3.0
    nz.inputs["Roughness"].default_value = 0.5
    nt.links.new(mp.outputs["Vector"], nz.inputs["Vector"])
    mix = nt.nodes.new("ShaderNodeMath")
    mix.operation = "MULTIPLY_ADD"
    mix.inputs[1].default_value = 0.6
    nt.links.new(wave.outputs["Fac"], mix.inputs[0])
    nt.links.new(nz.outputs["Fac"], mix.inputs[2])
    ramp = nt.nodes.new("ShaderNodeValToRGB")
    cr = ramp.color_ramp
    lo, hi = 0.45 - 0.1 * contrast, 0.85 + 0.05 * contrast
    cr.elements[0].position = lo
    cr.elements[0].color = rgba(dark_rgb)
    cr.elements[1].position = hi
    cr.elements[1].color = rgba(light_rgb)
    nt.links.new(mix.outputs["Value"], ramp.inputs["Fac"])
    color_out = ramp.outputs["Color"]
    bp = nt.nodes.new("ShaderNodeBump")
    bp.inputs["Strength"].default_value = 0.15
    bp.inputs["Distance"].default_value = 0.0003
    nt.links.new(mix.outputs["Value"], bp.inputs["Height"])
    nt.links.new(bp.outputs["Normal"], bsdf.inputs["Normal"])
    rough_out = None
    if extra_mask is not None:
        img, over_rgb, over_rough = extra_mask
        uvn = nt.nodes.new("ShaderNodeUVMap")
        it = nt.nodes.new("ShaderNodeTexImage")
        it.image = img
        it.image.colorspace_settings.name = "Non-Color"
        nt.links.new(uvn.outputs["UV"], it.inputs["Vector"])
        mx = nt.nodes.new("ShaderNodeMix")
        mx.data_type = "RGBA"
        nt.links.new(it.outputs["Color"], mx.inputs["Factor"])
        nt.links.new(color_out, mx.inputs[6])
        mx.inputs[7].default_value = rgba(over_rgb)
        color_out = mx.outputs[2]
        rm = nt.nodes.new("ShaderNodeMapRange")
        nt.links.new(it.outputs["Color"], rm.inputs["Value"])
        rm.inputs["To Min"].default_value = rough
        rm.inputs["To Max"].default_value = over_rough
        rough_out = rm.outputs["Result"]
    nt.links.new(color_out, bsdf.inputs["Base Color"])
    if rough_out is not None:
        nt.links.new(rough_out, bsdf.inputs["Roughness"])
    else:
        _set(bsdf, "Roughness", rough)
    if coat:
        _set(bsdf, "Coat Weight", coat)
        _set(bsdf, "Coat Roughness", 0.25)
    return m


def image_from_array(name, arr_rgb_u8, colorspace="sRGB", tmpdir="/tmp"):
    import cv2
    path = os.path.join(tmpdir, f"scenegen-{os.getpid()}-{name}.png")
    if arr_rgb_u8.ndim == 2:
        cv2.imwrite(path, arr_rgb_u8)
    else:
        cv2.imwrite(path, arr_rgb_u8[..., ::-1])
    img = bpy.data.images.load(path)
    img.pack()
    os.remove(path)
    img.colorspace_settings.name = colorspace
    return img


def textured_material(name, color_img, mask_img, base_rough, mask_rough, mask_metal=0.0, engrave=0.0, coat=0.0):
    """Board top printed from textures: ``mask`` picks the engraved/printed material."""
    m, nt, bsdf = _mat(name)
    uvn = nt.nodes.new("ShaderNodeUVMap")
    ic = nt.nodes.new("ShaderNodeTexImage")
    ic.image = color_img
    im = nt.nodes.new("ShaderNodeTexImage")
    im.image = mask_img
    for n in (ic, im):
        nt.links.new(uvn.outputs["UV"], n.inputs["Vector"])
    nt.links.new(ic.outputs["Color"], bsdf.inputs["Base Color"])
    rm = nt.nodes.new("ShaderNodeMapRange")
    nt.links.new(im.outputs["Color"], rm.inputs["Value"])
    rm.inputs["To Min"].default_value = base_rough
    rm.inputs["To Max"].default_value = mask_rough
    nt.links.new(rm.outputs["Result"], bsdf.inputs["Roughness"])
    if mask_metal:
        mm = nt.nodes.new("ShaderNodeMath")
        mm.operation = "MULTIPLY"
        mm.inputs[1].default_value = mask_metal
        nt.links.new(im.outputs["Color"], mm.inputs[0])
        nt.links.new(mm.outputs["Value"], bsdf.inputs["Metallic"])
    # fine surface noise so the top is not a perfect mirror-flat plane
    tc = nt.nodes.new("ShaderNodeTexCoord")
    nz = nt.nodes.new("ShaderNodeTexNoise")
    nz.inputs["Scale"].default_value = 400.0
    nt.links.new(tc.outputs["Object"], nz.inputs["Vector"])
    h = nt.nodes.new("ShaderNodeMath")
    h.operation = "MULTIPLY_ADD"
    h.inputs[1].default_value = -engrave if engrave else 0.0
    nt.links.new(im.outputs["Color"], h.inputs[0])
    nt.links.new(nz.outputs["Fac"], h.inputs[2])
    bp = nt.nodes.new("ShaderNodeBump")
    bp.inputs["Strength"].default_value = 0.2
    bp.inputs["Distance"].default_value = 0.001
    nt.links.new(h.outputs["Value"], bp.inputs["Height"])
    nt.links.new(bp.outputs["Normal"], bsdf.inputs["Normal"])
    if coat:
        _set(bsdf, "Coat Weight", coat)
        _set(bsdf, "Coat Roughness", 0.3)
    return m


# ---------------------------------------------------------------- scene parts
def build_board(spec):
    bs = spec["board"]
    b = board_for(bs)
    seed = bs["texture_seed"]
    color, mask = textures.board_texture(b, seed, 2048 if b.style in ("gigamic", "felt-circles") else 1536)
    if b.style == "gigamic":
        top = textured_material("board-top", image_from_array("btc", color), image_from_array("btm", mask, "Non-Color"),
                                base_rough=0.5, mask_rough=0.3, mask_metal=0.55, engrave=0.5)
        edge = wood_material("board-edge", b.colors["edge"], tuple(c * 0.75 for c in b.colors["edge"]), seed,
                             grain=(12, 1, 1), ring_scale=40, rough=0.45)
    elif b.style == "printed-grid":
        top = textured_material("board-top", image_from_array("btc", color), image_from_array("btm", mask, "Non-Color"),
                                base_rough=0.8, mask_rough=0.6)
        edge = plain_material("board-edge", (0.35, 0.33, 0.30), 0.8)
    elif b.style == "felt-circles":
        top = textured_material("board-top", image_from_array("btc", color), image_from_array("btm", mask, "Non-Color"),
                                base_rough=0.95, mask_rough=0.9)
        edge = wood_material("board-edge", (0.5, 0.36, 0.22), (0.36, 0.24, 0.14), seed, grain=(12, 1, 1))
    elif b.style == "walnut-checker":
        top = wood_material("board-top", b.colors["wood_a"], b.colors["wood_b"], seed, grain=(1, 14, 1), ring_scale=30,
                            rough=0.4, coat=0.3, per_object=False,
                            extra_mask=(image_from_array("btm", mask, "Non-Color"), b.colors["inlay"], 0.45))
        edge = wood_material("board-edge", b.colors["wood_a"], b.colors["wood_b"], seed + 1, grain=(1, 14, 1), ring_scale=30, rough=0.4)
    else:  # wood-round
        top = wood_material("board-top", b.colors["wood_a"], b.colors["wood_b"], seed, grain=(1, 14, 1), ring_scale=25,
                            rough=0.5, per_object=False)
        edge = top
    me = rounded_prism("board", b.size, 0.0, b.thickness, b.corner_radius, chamfer=min(0.0015, b.thickness / 3))
    ob = _obj("board", me, [top, edge])
    if b.recess_depth > 0:
        from .catalog import cell_grid_xy
        cutters = []
        bm = bmesh.new()
        for i in range(16):
            x, y = cell_grid_xy(b, i)
            r = b.cell_radius
            d = b.recess_depth
            tmp = lathe("rc", [[(0, b.thickness - d), (r - 0.001, b.thickness - d)] + _arc(r - 0.001, b.thickness - d + 0.001, 0.001, -90, 0, 2) + [(r, b.thickness + 0.01), (0, b.thickness + 0.01)]], 40)
            tmp.transform(Matrix.Translation((x, y, 0)))
            bm.from_mesh(tmp)
            bpy.data.meshes.remove(tmp)
        cm = bpy.data.meshes.new("recess")
        bm.to_mesh(cm)
        bm.free()
        cutter = _obj("recess", cm)
        cutter.hide_render = True
        bo = ob.modifiers.new("recess", "BOOLEAN")
        bo.operation = "DIFFERENCE"
        bo.solver = "EXACT"
        bo.object = cutter
        bake_modifiers(ob)
        bpy.data.objects.remove(cutter)
        bpy.data.meshes.remove(cm)
    ob.location = (bs["x"], bs["y"], 0.0)
    ob.rotation_euler = (0, 0, math.radians(bs["yaw_deg"]))
    return ob


def piece_materials(spec):
    ps = piece_set_for(spec["piece_set"])
    seed = spec["piece_set"]["texture_seed"]
    if ps.material == "wood":
        light = wood_material("piece-light", ps.light_rgb, tuple(c * 0.8 for c in ps.light_rgb), seed, rough=0.45, coat=0.15)
        dark = wood_material("piece-dark", tuple(min(1, c * 1.35) for c in ps.dark_rgb), ps.dark_rgb, seed + 1, rough=0.4, coat=0.2)
    elif ps.material == "paint":
        light = plain_material("piece-light", ps.light_rgb, 0.35, coat=0.2, bump=0.05)
        dark = plain_material("piece-dark", ps.dark_rgb, 0.35, coat=0.2, bump=0.05)
    else:
        light = plain_material("piece-light", ps.light_rgb, 0.2, bump=0.02)
        dark = plain_material("piece-dark", ps.dark_rgb, 0.2, bump=0.02)
    return light, dark


def piece_meshes(spec):
    ps = piece_set_for(spec["piece_set"])
    out = {}
    for p in range(16):
        h = ps.tall_h if p & 1 else ps.short_h
        hollow = bool(p & 8)
        if p & 4:
            out[p] = square_piece_mesh(f"piece{p:X}", ps.width, h, hollow, ps.hole_r, ps.hole_depth, ps.groove, ps.bevel)
        else:
            out[p] = lathe(f"piece{p:X}", round_piece_strips(ps.width / 2, h, hollow, ps.hole_r, ps.hole_depth, ps.groove, ps.bevel), 48)
    return out


def place_piece(p, meshes, mats, name=None):
    me = meshes[p["piece"]]
    if len(me.materials) == 0:
        me.materials.append(mats[1] if p["piece"] & 2 else mats[0])
    ob = bpy.data.objects.new(name or f"piece-{p['piece']:X}", me)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = (p["x"], p["y"], p["z"])
    ob.rotation_euler = (0, 0, math.radians(p["yaw_deg"]))
    return ob


def build_table(spec):
    t = spec["table"]
    seed = t["texture_seed"]
    kind = t["kind"]
    rgb = t["rgb"]
    if kind == "wood":
        mat = wood_material("table", rgb, tuple(c * 0.7 for c in rgb), seed, grain=(14, 1, 1), ring_scale=8 * t["scale"],
                            rough=t["roughness"] * 0.7, per_object=False, coat=0.2)
    elif kind == "cloth-check":
        img = image_from_array("cloth", textures.gingham(rgb, seed, 1024, 8))
        m, nt, bsdf = _mat("table")
        tc = nt.nodes.new("ShaderNodeTexCoord")
        mp = nt.nodes.new("ShaderNodeMapping")
        mp.inputs["Scale"].default_value = (1 / (0.16 * t["scale"]), 1 / (0.16 * t["scale"]), 1)
        mp.inputs["Rotation"].default_value = (0, 0, float(np.random.default_rng(seed).uniform(0, 3.14)))
        nt.links.new(tc.outputs["Object"], mp.inputs["Vector"])
        it = nt.nodes.new("ShaderNodeTexImage")
        it.image = img
        it.extension = "REPEAT"
        nt.links.new(mp.outputs["Vector"], it.inputs["Vector"])
        nt.links.new(it.outputs["Color"], bsdf.inputs["Base Color"])
        _set(bsdf, "Roughness", 0.95)
        mat = m
    elif kind in ("cloth-plain",):
        mat = plain_material("table", rgb, 0.95, bump=0.4, bump_scale=900)
    elif kind == "stone":
        mat = wood_material("table", rgb, tuple(c * 0.8 for c in rgb), seed, grain=(1, 1, 1), ring_scale=3, rough=0.35,
                            per_object=False, contrast=0.5)
    else:
        mat = plain_material("table", rgb, t["roughness"] * 0.6, bump=0.05)
    me = box_mesh("table", 3.0, 3.0, -0.03, 0.0)
    ob = _obj("table", me, mat)
    return ob


def build_clutter(spec):
    for i, c in enumerate(spec["clutter"]):
        k, s = c["kind"], c["scale"]
        if k == "mug":
            me = lathe("mug", [[(0, 0), (0.04 * s, 0), (0.041 * s, 0.095 * s), (0.036 * s, 0.095 * s), (0.035 * s, 0.008 * s), (0, 0.008 * s)]], 40)
            mat = plain_material(f"clutter{i}", c["rgb"], 0.15)
        elif k == "glass":
            me = lathe("glass", [[(0, 0), (0.032 * s, 0), (0.036 * s, 0.11 * s), (0.034 * s, 0.11 * s), (0.03 * s, 0.006 * s), (0, 0.006 * s)]], 40)
            m, nt, bsdf = _mat(f"clutter{i}")
            _set(bsdf, "Transmission Weight", 1.0)
            _set(bsdf, "Roughness", 0.05)
            _set(bsdf, "IOR", 1.45)
            mat = m
        elif k == "book":
            me = box_mesh("book", 0.15 * s, 0.22 * s, 0.0, 0.03 * s)
            mat = plain_material(f"clutter{i}", c["rgb"], 0.6)
        elif k == "game-box":
            me = rounded_prism("gamebox", 0.28 * s, 0.0, 0.06, 0.002)
            img = image_from_array(f"box{i}", textures.game_box_top(c["texture_seed"]))
            top, nt, bsdf = _mat(f"clutter{i}")
            it = nt.nodes.new("ShaderNodeTexImage")
            it.image = img
            nt.links.new(it.outputs["Color"], bsdf.inputs["Base Color"])
            _set(bsdf, "Roughness", 0.4)
            mat = [top, plain_material(f"clutter{i}s", c["rgb"], 0.5)]
        elif k == "pencil":
            me = lathe("pencil", [[(0, 0), (0.0035, 0), (0.0035, 0.17 * s), (0.001, 0.19 * s), (0, 0.19 * s)]], 6)
            mat = plain_material(f"clutter{i}", (0.95, 0.75, 0.1), 0.4)
        else:  # phone
            me = rounded_prism("phone", 0.075, 0.0, 0.008, 0.008)
            me.transform(Matrix.Scale(2.0, 4, (0, 1, 0)))
            mat = plain_material(f"clutter{i}", (0.02, 0.02, 0.025), 0.1)
        ob = _obj(k, me, mat)
        ob.location = (c["x"], c["y"], 0.0035 if k == "pencil" else 0.0)
        if k == "pencil":
            ob.rotation_euler = (math.pi / 2, 0, math.radians(c["yaw_deg"]))
        else:
            ob.rotation_euler = (0, 0, math.radians(c["yaw_deg"]))


def build_hand(spec):
    h = spec.get("hand")
    if not h:
        return
    skin = plain_material("skin", h["skin_rgb"], 0.55, bump=0.1, bump_scale=1500)
    try:
        sk = skin.node_tree.nodes["Principled BSDF"]
        _set(sk, "Subsurface Weight", 0.08)
        sk.inputs["Subsurface Radius"].default_value = (0.004, 0.002, 0.001)
    except KeyError:
        pass
    sleeve = plain_material("sleeve", h["sleeve_rgb"], 0.9, bump=0.3, bump_scale=1200)
    for i, c in enumerate(h["capsules"]):
        if c["part"] == "held-piece":
            continue
        p0, p1 = Vector(c["p0"]), Vector(c["p1"])
        d = p1 - p0
        me = capsule_mesh(f"cap{i}", d.length, c["r"], 24)
        ob = _obj(f"hand-{c['part']}-{i}", me, skin if c["part"] == "skin" else sleeve)
        ob.location = (p0 + p1) / 2
        ob.rotation_mode = "QUATERNION"
        ob.rotation_quaternion = d.to_track_quat("Z", "Y")


def build_lights(spec):
    L = spec["light"]
    col = srgb_to_linear(L["rgb"])
    world = bpy.data.worlds.new("world")
    bpy.context.scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background") or world.node_tree.nodes.new("ShaderNodeBackground")
    amb = srgb_to_linear(L["ambient_rgb"])
    bg.inputs["Color"].default_value = (*amb, 1.0)
    bg.inputs["Strength"].default_value = L["ambient"]
    az, el = math.radians(L["azimuth_deg"]), math.radians(L["elevation_deg"])
    direction = Vector((math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)))
    kind = L["kind"]
    if kind == "daylight":
        ld = bpy.data.lights.new("sun", "SUN")
        ld.energy = L["power"]
        ld.angle = math.radians(L["size"])
        loc = direction * 5
    elif kind == "warm-lamp":
        ld = bpy.data.lights.new("lamp", "POINT")
        ld.energy = L["power"]
        ld.shadow_soft_size = L["size"]
        loc = direction * L["distance"]
    else:
        ld = bpy.data.lights.new("area", "AREA")
        ld.energy = L["power"]
        ld.shape = "RECTANGLE"
        ld.size = L["size"]
        ld.size_y = L["size"] * (0.6 if kind == "ceiling" else 1.3)
        loc = direction * L["distance"]
    ld.color = col
    ob = bpy.data.objects.new("key-light", ld)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = loc
    ob.rotation_mode = "QUATERNION"
    ob.rotation_quaternion = (-direction).to_track_quat("-Z", "Y")


def build_camera(spec, width_r, height_r, K_render):
    """Blender camera matching OpenCV ``R``, ``t`` and the render intrinsics ``K_render``."""
    c = spec["camera"]
    K = np.asarray(K_render)
    R = np.asarray(c["R"])
    t = np.asarray(c["t"])
    cd = bpy.data.cameras.new("cam")
    cd.sensor_fit = "HORIZONTAL"
    cd.sensor_width = 36.0
    cd.lens = K[0, 0] * 36.0 / width_r
    # Blender puts the optical axis at the canvas centre ((W - 1) / 2 in pixel-centre
    # coordinates) unless shifted; shifts are in units of the larger side.
    big = max(width_r, height_r)
    cd.shift_x = -(K[0, 2] - (width_r - 1) / 2) / big
    cd.shift_y = (K[1, 2] - (height_r - 1) / 2) / big
    cd.clip_start = 0.01
    cd.clip_end = 20
    ob = bpy.data.objects.new("cam", cd)
    bpy.context.scene.collection.objects.link(ob)
    C = -R.T @ t
    rot = R.T @ np.diag([1.0, -1.0, -1.0])
    M = Matrix(((rot[0, 0], rot[0, 1], rot[0, 2], C[0]), (rot[1, 0], rot[1, 1], rot[1, 2], C[1]),
                (rot[2, 0], rot[2, 1], rot[2, 2], C[2]), (0, 0, 0, 1)))
    ob.matrix_world = M
    bpy.context.scene.camera = ob


class SceneBuilder:
    """Builds the static parts once (board, table, lights, camera, piece meshes) and lets a
    caller move pieces and the hand between renders (for game videos)."""

    def __init__(self, spec, margin, threads=2):
        from .camera import render_geometry

        reset()
        W, H, K_render = render_geometry(spec["camera"]["K"], spec["width"], spec["height"], margin,
                                         spec["render"].get("scale", 1.0))
        setup_render(W, H, spec["render"]["samples"], threads)
        self.spec = spec
        self.margin = margin
        build_table(spec)
        if spec["board"]["present"]:
            build_board(spec)
        build_clutter(spec)
        build_lights(spec)
        build_camera(spec, W, H, K_render)
        self.mats = piece_materials(spec)
        self.meshes = piece_meshes(spec)
        self.dynamic = []

    def set_dynamic(self, pieces, hand):
        """Replace the pieces and the hand (everything that changes between frames)."""
        keep = {m.name for m in self.meshes.values()}
        for ob in self.dynamic:
            me = ob.data
            bpy.data.objects.remove(ob)
            if me is not None and me.name not in keep and me.users == 0:
                bpy.data.meshes.remove(me)
        before = set(bpy.data.objects)
        for p in pieces:
            place_piece(p, self.meshes, self.mats)
        spec = dict(self.spec, hand=hand)
        build_hand(spec)
        if hand and hand.get("held"):
            place_piece(hand["held"], self.meshes, self.mats, name="held-piece")
        self.dynamic = [o for o in bpy.data.objects if o not in before]

    def render(self, path):
        render_to(path)
