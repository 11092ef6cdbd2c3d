"""Agent styles: what the model sees and how it acts. ``browser`` (element ids through function tools),
``computer`` (pixels through the vendor's computer tool), ``vlm`` (pixels through an open model's text
grammar)."""
