"""Repository defaults only: pytest-cua itself is loaded through its pytest11 entry point."""
