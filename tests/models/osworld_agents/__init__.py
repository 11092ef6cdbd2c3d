"""OSWorld-style agents for the bridge's tests (``--agent osworld:tests.models.osworld_agents.example:CodeAgent``)
and the inner runs' scripted model (``fake_plugin``)."""
