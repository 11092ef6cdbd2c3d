"""Writes tasks/gimp_l2_more.json: one more GIMP L2 task next to make/design_more.py's (posterize, rotate, export
as TIFF), with that generator's start state, demonstration pieces and evaluator (``gimp_adjusted``). Run
``python suites/prosoft/make/gimp_l2_more.py`` from the repository root.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import K, P, W, write  # noqa: E402
from design_more import WORK, gimp_task, gimp_value_dialog  # noqa: E402

ROTATE_CLOCKWISE = [K("alt", "i"), P("t"), P("c"), W(1.5)]  # Image > Transform > Rotate 90° clockwise

tasks = [
    gimp_task("gimp-posterize-rotate-tiff", "L2",
              f"poster.png (300x200) is open in GIMP. Posterize it to 4 levels (Colors > Posterize), rotate the image "
              f"90 degrees clockwise, and export it as a TIFF file to {WORK}/poster_rotated.tif.",
              {"format": "TIFF", "size": [200, 300], "ops": [["posterize", 4], ["rotate", 90]], "tolerance": 3},
              [*gimp_value_dialog("posterize", "Posterize", 4), *ROTATE_CLOCKWISE], f"{WORK}/poster_rotated.tif"),
]

if __name__ == "__main__":
    write("gimp_l2_more", tasks)
