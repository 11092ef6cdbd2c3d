"""The ``browser`` provider: a plain Chromium per xdist worker (entry point of ``pytest_cua.environments``)."""

from __future__ import annotations

from typing import Any

from pytest_cua.envs.base import EnvContext, EnvironmentProvider
from pytest_cua.envs.browser.environment import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptions, add_browser_options, check_browser_config


class BrowserProvider(EnvironmentProvider):
    """Chromium through Playwright, launched when the environment is created."""

    name = "browser"

    def add_options(self, group: Any) -> None:
        add_browser_options(group)

    def configure(self, config: Any) -> None:
        check_browser_config(config)

    def create(self, ctx: EnvContext) -> BrowserEnvironment:
        env = BrowserEnvironment(BrowserOptions.from_context(ctx), artifacts_dir=ctx.artifacts_dir,
                                 worker_id=ctx.worker_id, run_id=ctx.run_id)
        return env.start()


PROVIDER = BrowserProvider()
create = PROVIDER.create
