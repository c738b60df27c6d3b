"""Scene generator: photoreal Quarto scenes with exact ground truth, rendered with Blender.

Pure-Python parts (catalog, sampling, camera model, truth, hand model) import anywhere;
only ``scenegen.blender_scene`` needs ``bpy`` and runs in ``scenegen/.venv``.
"""
