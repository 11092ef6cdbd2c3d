"""A test window for the desktop executor: logs every pointer and key event it sees to /root/events.jsonl.

Run inside the container by the tests (start_files + start_command). Its title is ``cua-probe``; it sits at
the top-left corner with a red canvas, so screenshots can be checked by colour.
"""

import json
import time
import tkinter as tk

LOG = open("/root/events.jsonl", "a", buffering=1)


def log(kind, event, **extra):
    LOG.write(json.dumps({"kind": kind, "x": event.x_root, "y": event.y_root, "num": getattr(event, "num", None),
                          "keysym": getattr(event, "keysym", None), "char": getattr(event, "char", None),
                          "state": event.state, "t": time.monotonic(), **extra}) + "\n")


root = tk.Tk()
root.title("cua-probe")
root.geometry("900x600+0+0")
canvas = tk.Canvas(root, width=900, height=300, bg="#ff0000", highlightthickness=0)
canvas.pack(fill="x")
text = tk.Text(root, height=10)
text.pack(fill="both", expand=True)
for seq, kind in (("<ButtonPress>", "press"), ("<ButtonRelease>", "release"), ("<Double-Button-1>", "double"),
                  ("<Triple-Button-1>", "triple"), ("<Motion>", "motion")):
    canvas.bind(seq, lambda e, k=kind: log(k, e))


def on_key(event):
    log("key", event)
    root.after(1, lambda: LOG.write(json.dumps({"kind": "text", "text": text.get("1.0", "end-1c")}) + "\n"))


root.bind_all("<KeyPress>", on_key)
root.bind_all("<KeyRelease>", lambda e: log("keyup", e))
text.focus_set()
root.mainloop()
