"""Reports of pytest-cua runs: Allure results (``allure``) and the ``pytest-cua report`` command (``cli``)."""
