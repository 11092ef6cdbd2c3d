"""What the SCUBA templates share, one module per concept; the templates use it as one namespace
(``from . import shared as s``: ``s.relative_date``, ``s.fill_form``):

- ``scuba_template``: ``ScubaTemplate`` (the template base class that declares milestones once), ``share``, and
  the exact scoring's switches ``exact()`` (judge as SCUBA's evaluator, bugs included: ``score_scuba``) and
  ``crash_unless`` (where SCUBA's evaluator raises);
- ``dates``: ``today``, ``relative_date``, ``DateFormError``, ``QUOTE_DURATIONS``: relative dates read as
  SCUBA's scorers read them;
- ``text``: ``norm``, ``same_text``, ``html_text``, ``digits``, ``same_number``, ``as_list``, ``names``,
  ``triples``: text comparisons and ground-truth values;
- ``lookups``: ``checked_rows``, ``tooling_rows``, ``record_id``, ``require_id``, ``user_by_name``,
  ``role_by_name``, ``role_group_id``, ``group_members``, ``object_api_name``, ``field_labels``, ``describe``,
  ``standard_price``, ``convert_lead``: record look-ups that never crash on a missing record;
- ``sharing``: ``SHARING_LABELS``, ``sharing_model``, ``sharing_label``: organization-wide defaults;
- ``ui_steps``: ``button``, ``link``, ``click_button``, ``click_link``, ``open_list``, ``open_record``,
  ``record_url``, ``label``, ``fill_form``, ``choose_record`` (a lookup's record), ``ui_date``, ``ui_text``, ``save``, ``new_from_list``, ``new_related``; setup:
  ``setup_link``, ``open_create_menu``, ``open_object``, ``profile_labels``, ``only_checked``, ``picklist_value_steps``,
  ``column_field``: the UI steps a person takes in the org's forms.

``templates.common`` keeps ``soql_str``, ``rows``, ``first``, ``field``, ``split_name``, ``goto``; all but
``field`` are in this namespace too. Public names (other template modules import them; keep them stable) are
those of ``__all__``.

May import: ``pytest_cua`` (public API, actions, the embedded org's SOAP and metadata helpers) and
``templates.common``; no template module.
"""

from __future__ import annotations

from ..common import first, goto, rows, soql_str, split_name
from .dates import QUOTE_DURATIONS, DateFormError, relative_date, today
from .lookups import (checked_rows, convert_lead, describe, field_labels, group_members, object_api_name, record_id,
                      require_id, role_by_name, role_group_id, standard_price, tooling_rows, user_by_name)
from .scuba_template import EXACT, ScubaTemplate, crash_unless, exact, share
from .sharing import SHARING_LABELS, sharing_label, sharing_model
from .text import as_list, digits, html_text, names, norm, same_number, same_text, triples
from .ui_steps import (button, choose_record, click_button, click_link, click_tab, column_field, fill_form, label, link,
                       new_from_list,
                       new_related, only_checked, open_list, open_object, open_record, path_step,
                       picklist_value_steps,
                       profile_labels, record_url, save, open_create_menu, setup_link, ui_date, ui_text)

__all__ = [
    "EXACT", "crash_unless", "exact", "QUOTE_DURATIONS", "SHARING_LABELS", "DateFormError", "ScubaTemplate", "as_list", "button", "checked_rows",
    "choose_record",
    "click_button", "click_link", "click_tab", "column_field", "convert_lead", "describe", "digits", "field_labels", "fill_form",
    "first", "goto", "group_members", "html_text", "label", "link", "names", "new_from_list", "new_related", "norm",
    "object_api_name", "only_checked", "open_list", "open_object", "open_record", "path_step",
    "picklist_value_steps", "profile_labels", "record_id", "record_url", "relative_date", "require_id",
    "role_by_name", "role_group_id", "rows", "same_number", "same_text", "save", "open_create_menu", "setup_link", "share",
    "sharing_label", "sharing_model", "soql_str", "split_name", "standard_price", "today", "tooling_rows",
    "triples", "ui_date", "ui_text", "user_by_name",
]
