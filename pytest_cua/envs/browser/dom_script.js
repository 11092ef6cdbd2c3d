// pytest-cua: collect the interactive elements and an accessibility-style outline of one frame.
// Evaluated by pytest_cua.envs.browser in every frame at observation time, as
//   frame.evaluate(SCRIPT, {next: <first free id number>, attr: "data-cua-id", frameAttr: "data-cua-frame",
//                           maxText: 200, maxLines: 4000})
// Every interactive element gets (or keeps) an id in the attribute `attr`; iframes get a frame key in
// `frameAttr` so the caller can match child frames and place their outline. Nothing is sent anywhere.
(args) => {
  const ATTR = args.attr, FATTR = args.frameAttr;
  let next = args.next;
  const maxText = args.maxText, maxLines = args.maxLines;
  const used = new Set();
  const elements = [];
  const frames = [];
  const lines = [];
  const doc = document;

  const clean = (s, max) => {
    if (!s) return "";
    s = String(s).replace(/\s+/g, " ").trim();
    const m = max || maxText;
    return s.length > m ? s.slice(0, m - 1) + "\u2026" : s;
  };
  const q = (s) => JSON.stringify(s);

  const INTERACTIVE_ROLES = new Set(["button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox",
    "listbox", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton",
    "treeitem", "gridcell"]);
  const LANDMARKS = {NAV: "navigation", MAIN: "main", HEADER: "banner", FOOTER: "contentinfo", ASIDE: "complementary",
    FORM: "form", DIALOG: "dialog", FIELDSET: "group", TABLE: "table", UL: "list", OL: "list"};
  const LANDMARK_ROLES = new Set(["navigation", "main", "banner", "contentinfo", "complementary", "form", "dialog",
    "alertdialog", "group", "region", "table", "grid", "list", "tablist", "menu", "menubar", "toolbar", "tree",
    "alert", "status", "search"]);

  function isVisible(el) {
    if (el.checkVisibility) {
      if (!el.checkVisibility({checkVisibilityCSS: true})) return false;
    } else {
      const st = getComputedStyle(el);
      if (st.display === "none" || st.visibility === "hidden") return false;
    }
    return el.getClientRects().length > 0 || el.tagName === "OPTION";
  }

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(/\s+/)[0];
    const tag = el.tagName;
    if (tag === "A") return el.hasAttribute("href") ? "link" : "";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return (el.multiple || el.size > 1) ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") {
      const t = (el.type || "text").toLowerCase();
      if (t === "checkbox") return "checkbox";
      if (t === "radio") return "radio";
      if (["button", "submit", "reset", "image"].includes(t)) return "button";
      if (t === "range") return "slider";
      if (t === "number") return "spinbutton";
      if (t === "search") return "searchbox";
      if (t === "hidden") return "";
      return "textbox";
    }
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
    if (/^H[1-6]$/.test(tag)) return "heading";
    if (tag === "IMG") return "img";
    if (LANDMARKS[tag]) return LANDMARKS[tag];
    return "";
  }

  function isInteractive(el, role) {
    const tag = el.tagName;
    if (tag === "INPUT") return (el.type || "").toLowerCase() !== "hidden";
    if (tag === "BUTTON" || tag === "SELECT" || tag === "TEXTAREA" || tag === "SUMMARY") return true;
    if (tag === "A" && el.hasAttribute("href")) return true;
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (el.isContentEditable && role === "textbox") return true;
    if (el.hasAttribute("onclick")) return true;
    const ti = el.getAttribute("tabindex");
    if (ti !== null && parseInt(ti, 10) >= 0 && tag !== "DIV" && tag !== "SPAN") return true;
    if (ti !== null && parseInt(ti, 10) >= 0 && role) return true;
    return false;
  }

  function textOf(el) {
    return clean(el.innerText !== undefined ? el.innerText : el.textContent);
  }

  // a label's text as its accessible name has it: without what is hidden from assistive technology (the
  // aria-hidden "*" of a required field's label)
  function nameText(node) {
    if (node.nodeType === 3) return node.nodeValue;
    if (node.nodeType !== 1 || node.getAttribute("aria-hidden") === "true") return "";
    const cs = getComputedStyle(node);
    if (cs.display === "none" || cs.visibility === "hidden") return "";
    let out = "";
    for (const child of node.childNodes) out += nameText(child);
    return cs.display === "block" ? " " + out + " " : out;
  }

  // where a control is on screen: its own box, or for a checkbox or radio drawn by its label (SLDS hides the
  // input itself, a pixel or less, under the drawn box) its label's box, where a person clicks
  function boxOf(el) {
    const r = el.getBoundingClientRect();
    if ((r.width > 2 && r.height > 2) || !(el.type === "checkbox" || el.type === "radio")
        || !el.labels || !el.labels.length) return r;
    const l = el.labels[0].getBoundingClientRect();
    return l.width > 0 && l.height > 0 ? l : r;
  }

  function labelFor(el) {
    if (el.labels && el.labels.length) {
      return clean(Array.from(el.labels).map(nameText).join(" "));
    }
    return "";
  }

  function nameOf(el, role) {
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return clean(aria);
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const root = el.getRootNode ? el.getRootNode() : doc;
      // LWC's synthetic shadow roots refuse getElementById: look the id up with querySelector there
      const byId = (id) => {
        let found = null;
        try { if (root.getElementById) found = root.getElementById(id); } catch (e) { /* synthetic root */ }
        if (!found) { try { found = root.querySelector("#" + CSS.escape(id)); } catch (e) { found = null; } }
        // synthetic shadow keeps every component in the real DOM, so the browser resolves ids across
        // components (a datatable row's checkbox names its column header): so does the composed-tree index
        return found || composedById(id);
      };
      const t = by.split(/\s+/).map(byId).filter(Boolean)
        .map((n) => n.innerText || n.textContent).join(" ");
      if (t.trim()) return clean(t);
    }
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      const t = (el.type || "").toLowerCase();
      if (["button", "submit", "reset"].includes(t)) return clean(el.value || t);
      if (t === "image") return clean(el.alt || el.title || "image");
      const l = labelFor(el);
      if (l) return l;
      return clean(el.getAttribute("placeholder") || el.title || el.getAttribute("name") || "");
    }
    if (tag === "IMG") return clean(el.alt || el.title || "");
    const text = textOf(el);
    if (text) return text;
    const img = el.querySelector && el.querySelector("img[alt]");
    if (img) return clean(img.alt);
    return clean(el.title || el.getAttribute("name") || "");
  }

  let idIndex = null;
  function composedById(id) {
    if (idIndex === null) {
      idIndex = new Map();
      const stack = doc.documentElement ? [doc.documentElement] : [];
      while (stack.length) {
        const node = stack.pop();
        if (node.nodeType !== 1) continue;
        if (node.id && !idIndex.has(node.id)) idIndex.set(node.id, node);
        for (const child of childrenOf(node)) stack.push(child);
      }
    }
    return idIndex.get(id) || null;
  }

  function stateOf(el, role) {
    const st = {};
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA") {
      const t = (el.type || "text").toLowerCase();
      if (t === "checkbox" || t === "radio") st.checked = el.checked ? "true" : "false";
      else if (t === "password") st.value = el.value ? "\u2022\u2022\u2022\u2022" : "";
      else if (!["button", "submit", "reset", "image"].includes(t)) st.value = clean(el.value, 500);
      if (tag === "INPUT") st.type = t;
      if (el.placeholder) st.placeholder = clean(el.placeholder);
    } else if (tag === "SELECT") {
      const sel = Array.from(el.selectedOptions || []).map((o) => clean(o.label || o.text));
      st.value = sel.join(", ");
      st.options = Array.from(el.options).slice(0, 30).map((o) => clean(o.label || o.text, 60)).join(" | ");
    } else if (tag === "A") {
      const href = el.getAttribute("href") || "";
      st.href = clean(href, 300);
    } else if (role === "checkbox" || role === "switch" || role === "radio") {
      st.checked = el.getAttribute("aria-checked") || "false";
    } else if (role === "combobox") {
      // a Lightning combobox is a button (role=combobox) showing the chosen option's label
      st.value = clean(el.innerText, 500);
    }
    if (el.isContentEditable && role === "textbox") st.value = clean(el.innerText, 500);
    if (el.disabled || el.getAttribute("aria-disabled") === "true") st.disabled = "true";
    if (el.required || el.getAttribute("aria-required") === "true") st.required = "true";
    const exp = el.getAttribute("aria-expanded");
    if (exp !== null) st.expanded = exp;
    if (el.getAttribute("aria-selected") === "true") st.selected = "true";
    const current = el.getAttribute("aria-current");  // the page a navigation link stands for ("page")
    if (current && current !== "false") st.current = current;
    const root = el.getRootNode ? el.getRootNode() : doc;
    if ((root.activeElement || doc.activeElement) === el) st.focused = "true";
    return st;
  }

  function assignId(el) {
    let id = el.getAttribute(ATTR);
    if (!id || used.has(id) || !/^e\d+$/.test(id) || parseInt(id.slice(1), 10) >= next) {
      id = "e" + next++;
      el.setAttribute(ATTR, id);
    }
    used.add(id);
    return id;
  }

  function describeState(st) {
    const parts = [];
    for (const k of ["value", "checked", "selected", "current", "expanded", "disabled", "required", "focused"]) {
      if (st[k] !== undefined && st[k] !== "") parts.push(k === "value" ? "value=" + q(st[k]) : k + "=" + st[k]);
    }
    if (st.options) parts.push("options=" + q(st.options));
    return parts.length ? " [" + parts.join(", ") + "]" : "";
  }

  function emit(depth, text) {
    if (lines.length < maxLines) lines.push("  ".repeat(depth) + text);
  }

  // Children in rendered order: an open shadow root instead of the host's light DOM, and a slot's
  // assigned nodes (or its fallback content) in place of the slot.
  function childrenOf(node) {
    if (node.nodeType === 1 && node.shadowRoot) return Array.from(node.shadowRoot.childNodes);
    if (node.nodeType === 1 && node.tagName === "SLOT") {
      const assigned = node.assignedNodes({flatten: true});
      return assigned.length ? assigned : Array.from(node.childNodes);
    }
    return Array.from(node.childNodes);
  }

  const CONTROLS = "input,button,select,textarea,a[href],[role=button],[role=link],[role=checkbox],[role=option]," +
    "[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=treeitem],[role=tab]";
  // whether a control lies inside `el` in the composed tree (shadow roots entered; bounded)
  function hasControlInside(el) {
    const stack = childrenOf(el);
    for (let seen = 0; stack.length && seen < 2000; seen++) {
      const node = stack.pop();
      if (node.nodeType !== 1) continue;
      if (node.matches(CONTROLS)) return true;
      for (const child of childrenOf(node)) stack.push(child);
    }
    return false;
  }

  let frameCount = 0;
  function walk(node, depth) {
    if (lines.length >= maxLines && elements.length > 5000) return;
    for (const child of childrenOf(node)) {
      if (child.nodeType === 3) {
        const t = clean(child.nodeValue);
        if (t) emit(depth, "text " + q(t));
        continue;
      }
      if (child.nodeType !== 1) continue;
      const el = child;
      const tag = el.tagName;
      if (tag === "SCRIPT" || tag === "STYLE" || tag === "NOSCRIPT" || tag === "TEMPLATE" || tag === "HEAD") continue;
      if (!isVisible(el)) {
        // display:contents and option elements have no boxes of their own: look inside
        if (getComputedStyle(el).display === "contents") walk(el, depth);
        continue;
      }
      if (el.getAttribute("aria-hidden") === "true") continue;
      if (tag === "IFRAME" || tag === "FRAME") {
        const key = "f" + (++frameCount);
        el.setAttribute(FATTR, key);
        const r = el.getBoundingClientRect();
        const cs = getComputedStyle(el);
        frames.push({key: key, x: r.left + el.clientLeft + parseFloat(cs.paddingLeft || "0"),
                     y: r.top + el.clientTop + parseFloat(cs.paddingTop || "0")});
        emit(depth, "iframe " + q(clean(el.title || el.name || el.getAttribute("src") || "")) + " {{frame:" + key + "}}");
        continue;
      }
      const role = roleOf(el);
      if (isInteractive(el, role)) {
        const id = assignId(el);
        const r = boxOf(el);
        const name = nameOf(el, role);
        const st = stateOf(el, role);
        elements.push({id: id, role: role || tag.toLowerCase(), name: name, tag: tag.toLowerCase(),
                       bbox: [r.left, r.top, r.width, r.height], attributes: st});
        emit(depth, "[" + id + "] " + (role || tag.toLowerCase()) + " " + q(name) + describeState(st));
        // a few containers hold further controls (e.g. a clickable row with a checkbox inside)
        // (a listbox or menu holds its options and items: a Lightning combobox's list, a button menu's items; a
        // datatable's cell its link, inside another component's shadow root)
        if (hasControlInside(el) && !["SELECT", "BUTTON", "A"].includes(tag)
            && !["option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab"].includes(role)) walk(el, depth + 1);
        continue;
      }
      if (role === "heading") {
        const level = tag.length === 2 ? tag[1] : (el.getAttribute("aria-level") || "2");
        emit(depth, "heading " + q(textOf(el)) + " [level=" + level + "]");
        // a heading may hold a control: a card's title link, an expandable section's toggle button
        if (hasControlInside(el)) walk(el, depth + 1);
        continue;
      }
      if (role === "img") {
        const n = nameOf(el, role);
        if (n) emit(depth, "img " + q(n));
        continue;
      }
      if (LANDMARK_ROLES.has(role)) {
        const n = clean(el.getAttribute("aria-label") || (role === "dialog" ? "" : ""));
        emit(depth, role + (n ? " " + q(n) : ""));
        walk(el, depth + 1);
        continue;
      }
      if (tag === "LABEL" && el.control && !el.contains(el.control)) {
        continue; // the label text is the control's name
      }
      walk(el, depth);
    }
  }

  if (doc.body) walk(doc.body, 0);
  // one JSON string: Playwright then moves a single value instead of validating thousands of small ones
  return JSON.stringify({elements: elements, frames: frames, lines: lines, next: next,
          scroll: [window.scrollX, window.scrollY], viewport: [window.innerWidth, window.innerHeight],
          height: doc.documentElement ? doc.documentElement.scrollHeight : 0});
}
