"""The XML namespaces the ProSoft evaluators read documents with, in ElementTree's ``{uri}`` form: ODF's
(LibreOffice's own files), SVG's and OOXML's WordprocessingML (``.docx``). A namespace only one evaluator reads
stays in its module."""

from __future__ import annotations

# ODF (OpenDocument: .odt, .ods, .odp, .odg)
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}"
PRES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"

SVG_NS = "{http://www.w3.org/2000/svg}"
W_NS = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"  # WordprocessingML (.docx)
