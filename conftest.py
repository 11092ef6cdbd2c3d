"""Repository defaults only: pytest-cua itself is loaded through its pytest11 entry point."""

pytest_plugins = ["pytester"]  # the plugin's own tests run inner pytest sessions
