"""A Tk window with no accessibility tree (Tk exports none), for the vision marks: four buttons, an entry, a
check button and a label. A click on a button appends its name to clicked.txt; the widgets' boxes on the
screen are written to widgets.json once the window is mapped (what the detector should find). Both files go
to $CUA_VISION_DIR (default /root)."""

import json
import os
import tkinter as tk

OUT = os.environ.get("CUA_VISION_DIR", "/root")

root = tk.Tk()
root.title("cua-vision")
root.geometry("+60+50")
frame = tk.Frame(root, padx=20, pady=20)
frame.pack()
widgets = {}


def clicked(name):
    with open(os.path.join(OUT, "clicked.txt"), "a") as out:
        out.write(name + "\n")


for column, name in enumerate(("Open", "Save", "Run")):
    widgets[name] = tk.Button(frame, text=name if name != "Save" else "Save as...", width=10,
                              command=lambda n=name: clicked(n))
    widgets[name].grid(row=0, column=column, padx=12, pady=12)
widgets["entry"] = tk.Entry(frame, width=30)
widgets["entry"].grid(row=1, column=0, columnspan=2, pady=12)
widgets["check"] = tk.Checkbutton(frame, text="Log scale")
widgets["check"].grid(row=1, column=2)
tk.Label(frame, text="Threshold value:").grid(row=2, column=0)
widgets["Apply"] = tk.Button(frame, text="Apply", width=8, command=lambda: clicked("Apply"))
widgets["Apply"].grid(row=2, column=2, pady=12)


def dump():
    boxes = {k: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()] for k, w in widgets.items()}
    with open(os.path.join(OUT, "widgets.json.tmp"), "w") as out:
        json.dump(boxes, out)
    os.replace(os.path.join(OUT, "widgets.json.tmp"), os.path.join(OUT, "widgets.json"))


root.after(500, dump)
root.mainloop()
