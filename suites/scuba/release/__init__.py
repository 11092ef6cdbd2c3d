"""SCUBA's public release as a task source: its task records, the org's preparation for them and the suite.

``--scuba-root PATH`` names a checkout of the public SCUBA repository. Its tasks come from
``data/test_zero_shot.json`` (or ``data/test_demo_aug.json`` with ``--demos``), one pytest test per record;
before each worker's org is snapshotted it is prepared as SCUBA prepares its org: the release's metadata
prerequisites deployed, its seed records installed, and the Developer Edition org defaults and empty custom
objects the tasks take for granted added. One module per concept:

- ``task_records``: a release record as a Task (``load_release``, ``task_from_record``, ``release_file``);
- ``seed``: the seed records adapted to the embedded org's schema and installed (``install_seed``,
  ``SeedReport``);
- ``org_defaults``: a Developer Edition org's roles and users (``install_org_defaults``) and the object
  settings the admin questions read (``install_object_settings``, ``ORG_DEFAULT_ACCESS``);
- ``prerequisites``: the metadata prerequisites converted to a deploy package (``prerequisite_package``,
  ``PrerequisiteError``);
- ``deploy``: that package deployed into an org (``install_metadata``, ``install_custom_objects``);
- ``provision``: all of it for an org reached over its APIs only (``provision_over_api``);
- ``suite``: ``ScubaSuite``, which adds the release's tasks, prepares the org and scopes each task's rollback.

The names below stay importable from ``suites.scuba.release`` as they were before the package was split.

May import: ``pytest_cua`` (its public API, the task model and the embedded org's internals); nothing else of
``suites``.
"""

from __future__ import annotations

from .deploy import custom_objects_package, deploy_over_api, install_custom_objects, install_metadata
from .org_defaults import (KIND_WORDS, ORG_DEFAULT_ACCESS, ORG_DEFAULT_ROLES, ORG_DEFAULT_USERS,
                           install_object_settings, install_org_defaults, role_developer_name)
from .prerequisites import (ALWAYS_SETTINGS, METADATA_DIR, SKIPPED_FOLDERS, PrerequisiteError, PrerequisitePackage,
                            custom_objects, prerequisite_package, wanted_members)
from .provision import provision_over_api
from .seed import SEED_DIR, SeedReport, install_seed
from .suite import OBJECT_ALIASES, ROOT_OPTION, ScubaSuite, demos_wanted, release_root, scope_names
from .task_records import (DEMO_AUG_FILE, PERSONAS, ZERO_SHOT_FILE, load_release, release_file, task_from_record,
                           tasks_to_prepare)

__all__ = [
    "ALWAYS_SETTINGS", "DEMO_AUG_FILE", "KIND_WORDS", "METADATA_DIR", "OBJECT_ALIASES", "ORG_DEFAULT_ACCESS",
    "ORG_DEFAULT_ROLES", "ORG_DEFAULT_USERS", "PERSONAS", "ROOT_OPTION", "SEED_DIR", "SKIPPED_FOLDERS",
    "ZERO_SHOT_FILE", "PrerequisiteError", "PrerequisitePackage", "ScubaSuite", "SeedReport", "custom_objects",
    "custom_objects_package", "demos_wanted", "deploy_over_api", "install_custom_objects", "install_metadata",
    "install_object_settings", "install_org_defaults", "install_seed", "load_release", "prerequisite_package",
    "provision_over_api", "release_file", "release_root", "role_developer_name", "scope_names", "task_from_record",
    "tasks_to_prepare", "wanted_members",
]
