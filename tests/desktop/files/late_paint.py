"""A test window that maps blank and paints its content only later, as a big program does while it loads.

Run inside the container by the tests: ``python3 late_paint.py SECONDS [frame]``. Its title is ``late-paint``;
for SECONDS it shows one flat colour (with ``frame``: and a rule across it, as LibreOffice's empty frame), then it
draws a grid of many shades and writes /root/painted.
"""

import sys
import tkinter as tk

DELAY_MS = int(float(sys.argv[1] if len(sys.argv) > 1 else 5) * 1000)

root = tk.Tk()
root.title("late-paint")
root.geometry("800x500+100+100")
canvas = tk.Canvas(root, width=800, height=500, bg="#dddddd", highlightthickness=0)
canvas.pack(fill="both", expand=True)
if sys.argv[2:3] == ["frame"]:
    canvas.create_line(0, 450, 800, 450, fill="#888888", width=1)


def paint() -> None:
    for i in range(16):
        for j in range(10):
            shade = (i * 16 + j * 7) % 256
            canvas.create_rectangle(i * 50, j * 50, i * 50 + 50, j * 50 + 50, fill=f"#{shade:02x}{255 - shade:02x}80",
                                    width=0)
    root.update_idletasks()
    with open("/root/painted", "w") as f:
        f.write("painted\n")


root.after(DELAY_MS, paint)
root.mainloop()
