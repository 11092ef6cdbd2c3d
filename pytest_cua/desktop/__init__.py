"""Desktop environments in Docker: image recipes and builds, the in-container executor and its client,
leftover sweeping and the ``pytest-cua image`` / ``pytest-cua docker`` commands."""
