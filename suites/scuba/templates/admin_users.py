"""Admin persona, users: create a user; deactivate one; freeze one.

``create_user``: ground truth ``user_name`` ("First Last"), ``email``, ``username``, ``profile`` and ``role``.
SCUBA's ``deactivate_user`` and ``freeze_user``: ground truth ``username``, a full name ("First Last") that
the scorer splits into first and last name; freezing is read from UserLogin.IsFrozen as SCUBA's scorer does.
Both are one milestone of weight 1, as in SCUBA (milestone_evaluator_admin.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, Uncheck

from . import shared as s
from .common import first, soql_str, split_name

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _open_user(env: Any, name: str) -> list[Action]:
    """Setup > Users, then the user's page."""
    return [*s.setup_link(env, "Users"), s.click_link(name)]


class CreateUser(s.ScubaTemplate):
    """A new user with email, username, profile and role."""

    name = "create_user"
    ground_truth_keys = ("email", "profile", "role", "user_name", "username")
    objects = ("User", "UserLogin")
    milestones = {"user exists": 0.25, "email and username": 0.25, "profile": 0.25, "role": 0.25}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("user_name", ""))
        user: dict[str, Any] | None = None
        with milestone("user exists"):
            user = s.user_by_name(sf, name, "Id, Name, Email, Username, IsActive, Profile.Name, UserRole.Name")
            assert user is not None, f"no user named {name!r}"
            assert user.get("IsActive"), f"user {name!r} is not active"
        missing = f"no user {name!r}"
        with milestone("email and username"):
            assert user is not None, missing
            wrong = [f"{f} is {user.get(f)!r}, expected {truth.get(k)!r}" for f, k in
                     (("Email", "email"), ("Username", "username")) if not s.same_text(user.get(f), truth.get(k))]
            assert not wrong, "; ".join(wrong)
        with milestone("profile"):
            assert user is not None, missing
            got = (user.get("Profile") or {}).get("Name")
            assert s.same_text(got, truth.get("profile")), f"profile is {got!r}, expected {truth.get('profile')!r}"
        with milestone("role"):
            assert user is not None, missing
            got = (user.get("UserRole") or {}).get("Name")
            assert s.same_text(got, truth.get("role")), f"role is {got!r}, expected {truth.get('role')!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        first_name, last_name = split_name(str(truth["user_name"]))
        profile = first(sf, f"SELECT Id FROM Profile WHERE Name = {soql_str(truth['profile'])}")
        role = s.role_by_name(sf, str(truth["role"]))
        assert profile is not None and role is not None, "seed lacks the profile or the role"
        alias = (first_name[:1] + last_name)[:8].lower()
        sf.User.create({"FirstName": first_name, "LastName": last_name, "Email": truth["email"],
                        "Username": truth["username"], "Alias": alias, "ProfileId": profile["Id"],
                        "UserRoleId": role["Id"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        first_name, last_name = split_name(str(truth["user_name"]))
        labels = s.field_labels(sf, "User")
        return [*s.setup_link(env, "Users"), s.click_button("New User"),
                Fill(f"label={labels['FirstName']}", first_name), Fill(f"label={labels['LastName']}", last_name),
                Fill(f"label={labels['Email']}", str(truth["email"])),
                Fill(f"label={labels['Username']}", str(truth["username"])),
                Fill(f"label={labels['ProfileId']}", str(truth["profile"])),
                Fill(f"label={labels['UserRoleId']}", str(truth["role"])), s.click_button("Save"), Done()]


class DeactivateUser(s.ScubaTemplate):
    """A user made inactive (users are never deleted)."""

    name = "deactivate_user"
    ground_truth_keys = ("username",)
    objects = ("User",)
    milestones = {"user inactive": 1.0}

    def check(self, ctx: EvalContext) -> None:
        name = str(ctx.truth.get("username", ""))
        user = s.user_by_name(ctx.env.org, name)
        if s.exact():  # SCUBA reads records[0] of the user: IndexError without one
            s.crash_unless(user is not None, f"no user named {name!r} (SCUBA: IndexError)")
        with milestone("user inactive"):
            assert user is not None, f"no user named {name!r}"
            assert user.get("IsActive") is False, f"user {name!r} is still active"

    def solve(self, task: "Task", env: "Environment") -> None:
        user = s.user_by_name(env.org, str(task.ground_truth["username"]))  # type: ignore[attr-defined]
        assert user is not None, f"seed has no user {task.ground_truth['username']!r}"
        env.org.User.update(user["Id"], {"IsActive": False})  # type: ignore[attr-defined]

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        name = str(task.ground_truth["username"])
        return [*_open_user(env, name), s.click_button("Edit"), Uncheck("label=Active"), s.click_button("Save"), Done()]


class FreezeUser(s.ScubaTemplate):
    """A user's login frozen (UserLogin.IsFrozen)."""

    name = "freeze_user"
    ground_truth_keys = ("username",)
    objects = ("UserLogin", "User")
    milestones = {"login frozen": 1.0}

    def check(self, ctx: EvalContext) -> None:
        sf = ctx.env.org
        name = str(ctx.truth.get("username", ""))
        with milestone("login frozen"):
            user = s.user_by_name(sf, name)
            assert user is not None, f"no user named {name!r}"
            logins = s.checked_rows(sf, f"SELECT IsFrozen FROM UserLogin WHERE UserId = {soql_str(user['Id'])}")
            assert logins, f"user {name!r} has no login record"
            assert logins[0].get("IsFrozen") is True, f"user {name!r} is not frozen"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf = env.org  # type: ignore[attr-defined]
        user = s.user_by_name(sf, str(task.ground_truth["username"]))
        assert user is not None, f"seed has no user {task.ground_truth['username']!r}"
        login = first(sf, f"SELECT Id FROM UserLogin WHERE UserId = {soql_str(user['Id'])}")
        assert login is not None
        sf.UserLogin.update(login["Id"], {"IsFrozen": True})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        name = str(task.ground_truth["username"])
        return [*_open_user(env, name), s.click_button("Freeze"), Done()]


TEMPLATES = [CreateUser(), DeactivateUser(), FreezeUser()]
