"""A small desktop suite of the Ctrl-C test: xterm on cua-desktop-base; a task passes when /root/out.txt holds
"done" (noop never writes it)."""

from pathlib import Path

from pytest_cua import Suite, Template, milestone


class Wrote(Template):
    name = "wrote"

    def evaluate(self, ctx):
        with milestone("out.txt says done", 1.0):
            path = ctx.artifacts.get("out")
            assert path is not None and Path(path).is_file(), "no out.txt"
            assert Path(path).read_text().strip() == "done"


class DeskSuite(Suite):
    task_fields = ("start_command", "window", "artifacts")


CUA_SUITE = DeskSuite("desk", environment="docker", tasks=("tasks/*.json",), templates={"wrote": Wrote()},
                      environment_options={"image": "cua-desktop-base", "memory": "1g", "cpus": 1.0})


def test_task(cua_result):
    cua_result.check()
