// The sandbox's pages: the verification page's Approve and Deny, and a model's page, which
// renders the model's evaluated view as a form, writes each changed field as a mutation, and
// follows the model's changes over server-sent events. Plain script, no build step.
"use strict";

(function () {
  const root = document.querySelector('meta[name="sandbox-path"]').content;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;

  async function send(method, path, body) {
    const response = await fetch(root + path, {
      method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = { error: "unreadable", error_description: "the server's answer is not JSON" };
    }
    return { ok: response.ok, status: response.status, data };
  }

  function describe(data) {
    if (!data) return "Something went wrong.";
    return data.error_description || data.message || data.error || JSON.stringify(data);
  }

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // --- The verification page -----------------------------------------------------------

  function verifyPage() {
    const form = document.getElementById("pairing");
    const input = document.getElementById("user-code");
    const outcome = document.getElementById("outcome");
    const match = /(?:^#|&)c=([^&]*)/.exec(location.hash);
    if (match) {
      input.value = decodeURIComponent(match[1]);
      // The code is in the address only to reach this page: it leaves the address bar and
      // the history entry.
      history.replaceState(null, "", location.pathname + location.search);
    }
    const buttons = form.querySelectorAll("button");
    async function decide(action) {
      buttons.forEach((b) => (b.disabled = true));
      outcome.className = "outcome";
      outcome.textContent = action === "approve" ? "Approving…" : "Denying…";
      const answer = await send("POST", "/" + action, { userCode: input.value });
      if (answer.ok && action === "approve") {
        outcome.textContent = "Paired. Opening your models…";
        location.assign(answer.data.sessionPage);
        return;
      }
      if (answer.ok) {
        outcome.textContent = "Denied. Your agent is told; you can close this page.";
        return;
      }
      outcome.className = "outcome error";
      outcome.textContent = describe(answer.data);
      buttons.forEach((b) => (b.disabled = false));
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      decide("approve");
    });
    document.getElementById("deny").addEventListener("click", () => decide("deny"));
  }

  // --- A model's page ------------------------------------------------------------------

  const NUMERIC = new Set(["numericField", "numberField", "currencyField", "percentField", "sliderField"]);
  const BOOLEAN = new Set(["checkboxField", "checkbox", "toggleField", "toggle"]);
  const CONTAINERS = new Set(["group", "card", "tabs", "section"]);
  const DISPLAYS = new Set([
    "label", "staticText", "text", "heading", "alert", "badge", "statTile", "stat",
    "keyValueList", "dataTable", "progressBar", "validationSummary", "explainPanel", "auditTimeline",
  ]);

  function modelPage() {
    const form = document.getElementById("model");
    const live = document.getElementById("live");
    const id = form.dataset.modelId;
    const base = "/api/models/" + encodeURIComponent(id);
    const state = { shape: null, flagged: [], errors: new Map(), options: new Map() };

    function text(value) {
      if (value === undefined || value === null) return "";
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    }

    function optionsOf(component) {
      const options = component.options || component.choices || [];
      return options.map((o) =>
        o !== null && typeof o === "object" ? { value: o.value, label: o.label ?? text(o.value) } : { value: o, label: text(o) });
    }

    // The input(s) of a bound field, named by its bind address.
    function field(c) {
      const name = c.bind;
      const fid = "f-" + c.id;
      const type = c.type;
      let input;
      if (BOOLEAN.has(type)) {
        input = element("input", { type: "checkbox", id: fid, name, role: type.startsWith("toggle") ? "switch" : undefined });
      } else if (type === "selectField" || type === "select" || type === "comboBox") {
        input = element("select", { id: fid, name }, element("option", { value: "" }, ""));
        optionsOf(c).forEach((o, i) => input.append(element("option", { value: String(i) }, o.label)));
        state.options.set(name, optionsOf(c));
      } else if (type === "radioField" || type === "radio") {
        input = element("div", { id: fid, class: "radios", role: "radiogroup" });
        state.options.set(name, optionsOf(c));
        optionsOf(c).forEach((o, i) =>
          input.append(element("label", { class: "radio" }, element("input", { type: "radio", name, value: String(i) }), o.label)));
      } else if (type === "textAreaField" || type === "textArea") {
        input = element("textarea", { id: fid, name, rows: c.rows || 4 });
      } else if (type === "sliderField" || type === "slider") {
        input = element("input", { type: "range", id: fid, name, min: c.min ?? 0, max: c.max ?? 100, step: c.step ?? 1 });
      } else if (NUMERIC.has(type)) {
        input = element("input", { type: "number", id: fid, name, step: c.step ?? "any", min: c.min, max: c.max });
      } else if (type === "dateField" || type === "date") {
        input = element("input", { type: "date", id: fid, name });
      } else {
        input = element("input", { type: "text", id: fid, name });
      }
      const label = element("label", { for: fid, class: "field-label" }, c.label ?? c.bind, element("span", { class: "required-mark" }, " *"));
      const unit = type === "currencyField" ? (c.currency || "") : type === "percentField" ? "%" : "";
      const control = element("div", { class: "control" }, input, unit ? element("span", { class: "unit" }, unit) : null);
      if (type === "sliderField" || type === "slider") control.append(element("output", { for: fid, class: "slider-value" }));
      return [label, control, element("p", { class: "field-error", role: "alert" })];
    }

    function display(c) {
      const shown = c.text ?? c.value;
      switch (c.type) {
        case "label":
          return [element("span", { class: "label" }, text(c.text ?? c.label ?? c.value))];
        case "heading":
          return [element("h2", {}, text(c.text ?? c.label))];
        case "alert":
          return [element("div", { class: "alert alert-" + (c.severity || c.variant || "info"), role: "alert" }, text(shown))];
        case "badge":
          return [element("span", { class: "badge badge-" + (c.variant || c.severity || "neutral") }, text(shown ?? c.label))];
        case "statTile":
        case "stat":
          return [
            element("span", { class: "stat-label" }, text(c.label)),
            element("span", { class: "stat-value" }, text(c.value ?? c.text)),
            element("span", { class: "stat-caption" }, text(c.caption)),
            element("span", { class: "stat-delta" }, text(c.delta ?? c.trend)),
          ];
        case "keyValueList": {
          const list = element("dl", { class: "pairs" });
          const items = c.items || (c.value && typeof c.value === "object" ? Object.entries(c.value).map(([k, v]) => ({ label: k, value: v })) : []);
          items.forEach((item) => list.append(element("dt", {}, text(item.label ?? item.key)), element("dd", {}, text(item.value ?? item.text))));
          return [c.label ? element("span", { class: "field-label" }, c.label) : null, list];
        }
        case "dataTable": {
          const rows = Array.isArray(c.value) ? c.value : [];
          const columns = (c.columns || Object.keys(rows[0] || {})).map((col) =>
            typeof col === "object" ? { key: col.key ?? col.field ?? col.id, label: col.label ?? col.header ?? col.key ?? col.field } : { key: col, label: col });
          const table = element("table", { class: "table" });
          table.append(element("thead", {}, element("tr", {}, ...columns.map((col) => element("th", {}, text(col.label))))));
          const body = element("tbody");
          rows.forEach((row) => body.append(element("tr", {}, ...columns.map((col) => element("td", {}, text(row && row[col.key]))))));
          table.append(body);
          return [c.label ? element("span", { class: "field-label" }, c.label) : null, table];
        }
        case "progressBar": {
          const max = Number(c.max ?? 100);
          const value = Number(c.value ?? 0);
          return [
            c.label ? element("span", { class: "field-label" }, c.label) : null,
            element("progress", { max, value: Number.isFinite(value) ? value : 0 }, text(c.value)),
            element("span", { class: "progress-value" }, text(c.value)),
          ];
        }
        case "validationSummary":
          return [element("ul", { class: "validation" })];
        default:
          return [element("p", { class: "text" }, text(shown ?? c.label))];
      }
    }

    function tabs(c, children) {
      const bar = element("div", { class: "tab-bar", role: "tablist" });
      const panels = element("div", { class: "tab-panels" });
      children.forEach((child, i) => {
        const button = element("button", { type: "button", role: "tab", class: "tab", "aria-selected": i === 0 ? "true" : "false" }, child.label ?? child.id);
        const panel = element("div", { role: "tabpanel", class: "tab-panel", hidden: i !== 0 });
        panel.append(component(child));
        button.addEventListener("click", () => {
          bar.querySelectorAll(".tab").forEach((b, j) => b.setAttribute("aria-selected", j === i ? "true" : "false"));
          panels.querySelectorAll(":scope > .tab-panel").forEach((p, j) => (p.hidden = j !== i));
        });
        bar.append(button);
        panels.append(panel);
      });
      return [bar, panels];
    }

    // A list bound to an array: each element rendered with the children, their `[*]` made
    // the element's index.
    function sectionList(c) {
      const items = Array.isArray(c.value) ? c.value : [];
      const list = element("div", { class: "sections" });
      items.forEach((_, index) => {
        const section = element("div", { class: "section-item" });
        (c.children || []).forEach((child) => {
          const bind = child.bind ? child.bind.replace("[*]", "[" + index + "]") : child.bind;
          const relative = child.bind && child.bind.startsWith(c.bind + "[*].") ? child.bind.slice(c.bind.length + 4) : null;
          const value = relative === null ? child.value : items[index] && items[index][relative];
          section.append(component({ ...child, id: child.id + "-" + index, bind, value }));
        });
        if (c.canRemove !== false) {
          const remove = element("button", { type: "button", class: "secondary remove" }, "Remove");
          remove.addEventListener("click", () => patch([{ op: "remove", path: pointer(c.bind) + "/" + index }]));
          section.append(remove);
        }
        list.append(section);
      });
      const parts = [c.label ? element("span", { class: "field-label" }, c.label) : null, list];
      if (c.canAdd !== false) {
        const add = element("button", { type: "button", class: "secondary add" }, "Add");
        const path = pointer(c.bind) + (Array.isArray(c.value) ? "/-" : "");
        add.addEventListener("click", () => patch([{ op: "add", path, value: Array.isArray(c.value) ? {} : [{}] }]));
        parts.push(add);
      }
      return parts;
    }

    // `$.a.b[0]` as the JSON Pointer `/a/b/0`.
    function pointer(address) {
      return address.replace(/^\$/, "").replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean)
        .map((p) => "/" + p.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
    }

    function component(c) {
      const node = element("div", { class: "component c-" + c.type, "data-component-id": c.id, "data-type": c.type });
      let parts;
      if (c.type === "tabs") parts = tabs(c, c.children || []);
      else if (c.type === "sectionList") parts = sectionList(c);
      else if (CONTAINERS.has(c.type)) {
        const heading = c.label ? element(c.type === "group" ? "legend" : "h2", {}, c.label) : null;
        parts = [heading, ...(c.children || []).map(component)];
      } else if (c.bind && !DISPLAYS.has(c.type)) parts = field(c);
      else parts = display(c);
      parts.filter(Boolean).forEach((p) => node.append(p));
      apply(node, c);
      return node;
    }

    // What changes without a new shape: visibility, state, value, texts.
    function apply(node, c) {
      node.hidden = c.visible === false;
      node.classList.toggle("required", c.required === true);
      if (c.bind && !DISPLAYS.has(c.type) && c.type !== "sectionList" && !CONTAINERS.has(c.type)) {
        const inputs = node.querySelectorAll(`[name="${CSS.escape(c.bind)}"]`);
        inputs.forEach((input) => {
          const locked = c.readOnly === true || c.enabled === false;
          if (input.tagName === "SELECT" || input.type === "checkbox" || input.type === "radio" || input.type === "range") {
            input.disabled = locked;
          } else {
            input.readOnly = c.readOnly === true;
            input.disabled = c.enabled === false && c.readOnly !== true;
          }
          input.required = c.required === true;
          if (input.type !== "radio") input.setAttribute("aria-required", c.required === true ? "true" : "false");
          const keep = document.activeElement === input || state.errors.has(c.bind);
          if (!keep) show(input, c);
        });
        const output = node.querySelector("output");
        if (output) output.textContent = text(c.value);
      }
    }

    function show(input, c) {
      const value = c.value;
      if (input.type === "checkbox") input.checked = value === true;
      else if (input.type === "radio" || input.tagName === "SELECT") {
        const index = (state.options.get(c.bind) || []).findIndex((o) => JSON.stringify(o.value) === JSON.stringify(value));
        if (input.type === "radio") input.checked = index >= 0 && input.value === String(index);
        else input.value = index >= 0 ? String(index) : "";
      } else input.value = value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    }

    // The value a field's input holds, as the model reads it: numbers as numbers, empty as null.
    function read(input) {
      const wrapper = input.closest("[data-component-id]");
      const type = wrapper ? wrapper.dataset.type : "";
      if (input.type === "checkbox") return input.checked;
      if (input.type === "radio" || input.tagName === "SELECT") {
        const option = (state.options.get(input.name) || [])[Number(input.value)];
        return input.value === "" || !option ? null : option.value;
      }
      if (input.value === "") return null;
      if (NUMERIC.has(type) || input.type === "number" || input.type === "range") {
        const number = Number(input.value);
        return Number.isFinite(number) ? number : input.value;
      }
      return input.value;
    }

    function fieldError(name, message) {
      form.querySelectorAll(`[name="${CSS.escape(name)}"]`).forEach((input) => {
        const wrapper = input.closest("[data-component-id]");
        const slot = wrapper && wrapper.querySelector(".field-error");
        if (slot) slot.textContent = message || "";
        if (wrapper) wrapper.classList.toggle("invalid", Boolean(message));
        input.setAttribute("aria-invalid", message ? "true" : "false");
      });
      if (message) state.errors.set(name, message);
      else state.errors.delete(name);
    }

    function flagged(list) {
      state.flagged = list || [];
      form.querySelectorAll(".validation").forEach((ul) => {
        ul.replaceChildren(...state.flagged.map((f) => element("li", { "data-constraint-id": f.constraintId }, f.message || f.constraintId)));
        ul.closest("[data-component-id]").classList.toggle("empty", state.flagged.length === 0);
      });
    }

    // The shape of a view: its layout and the ids and types of its components, nested.
    function shape(view) {
      const walk = (list) => (list || []).map((c) => c.id + ":" + c.type + (c.type === "sectionList" ? "#" + (Array.isArray(c.value) ? c.value.length : 0) : "") + "(" + walk(c.children) + ")").join(",");
      return view.layout + "|" + walk(view.components);
    }

    function render(answer) {
      const view = answer.view;
      const newShape = shape(view);
      if (newShape !== state.shape) {
        state.shape = newShape;
        state.options.clear();
        form.className = "model layout-" + (view.layout || "vertical");
        document.getElementById("title").textContent = view.title ?? id;
        const top = view.layout === "tabs" ? tabs({}, view.components || []) : (view.components || []).map(component);
        form.replaceChildren(...top);
        state.errors.forEach((message, name) => fieldError(name, message));
      } else {
        const update = (list) => (list || []).forEach((c) => {
          const node = form.querySelector(`[data-component-id="${CSS.escape(c.id)}"]`);
          if (!node) return;
          if (DISPLAYS.has(c.type) && c.type !== "validationSummary") {
            const fresh = component(c);
            node.replaceWith(fresh);
          } else apply(node, c);
          if (c.type !== "sectionList") update(c.children);
        });
        update(view.components);
      }
      flagged(answer.flaggedConstraints);
    }

    async function refresh() {
      const answer = await send("GET", base + "/view");
      if (!answer.ok) {
        live.className = "live error";
        live.textContent = describe(answer.data);
        return false;
      }
      render(answer.data);
      return true;
    }

    async function write(name, value) {
      live.textContent = "Saving…";
      const answer = await send("POST", base + "/mutations", { [name]: value });
      return settle(answer, [name]);
    }

    async function patch(operations) {
      const answer = await send("POST", base + "/patch", { patch: operations });
      return settle(answer, []);
    }

    // After a write: errors beside their fields (the typed value stays), else fresh values.
    async function settle(answer, names) {
      names.forEach((n) => fieldError(n, null));
      if (!answer.ok) {
        const violations = (answer.data && answer.data.violations) || [];
        const placed = violations.filter((v) => v.path && form.querySelector(`[name="${CSS.escape(v.path)}"]`));
        placed.forEach((v) => fieldError(v.path, v.message));
        if (placed.length === 0) {
          const message = violations.map((v) => v.message).filter(Boolean).join(" ") || describe(answer.data);
          names.forEach((n) => fieldError(n, message));
        }
        live.textContent = "Not saved.";
        return;
      }
      live.textContent = "Saved.";
      if (answer.data && answer.data.flaggedConstraints) flagged(answer.data.flaggedConstraints);
      await refresh();
    }

    form.addEventListener("change", (event) => {
      const input = event.target;
      if (!input.name || input.readOnly || input.disabled) return;
      write(input.name, read(input));
    });
    form.addEventListener("input", (event) => {
      const input = event.target;
      if (input.type === "range") {
        const output = input.closest(".control").querySelector("output");
        if (output) output.textContent = input.value;
      }
    });
    form.addEventListener("submit", (event) => event.preventDefault());

    function follow() {
      const events = new EventSource(root + base + "/events");
      events.onopen = () => {
        live.className = "live";
        live.textContent = "Live";
      };
      events.addEventListener("changed", async () => {
        if (await refresh()) {
          live.className = "live";
          live.textContent = "Live";
        }
      });
      events.addEventListener("deleted", () => {
        events.close();
        live.className = "live error";
        live.textContent = "This model was deleted.";
        form.querySelectorAll("input, select, textarea, button").forEach((i) => (i.disabled = true));
      });
      events.onerror = () => {
        live.className = "live error";
        // The browser reconnects by itself unless the server refused the stream.
        live.textContent = events.readyState === EventSource.CLOSED ? "Disconnected: reload the page." : "Reconnecting…";
      };
    }

    // A model the page cannot show (another session's, deleted) has no changes to follow.
    refresh().then((shown) => shown && follow());
  }

  const page = document.body.dataset.page;
  if (page === "verify") verifyPage();
  if (page === "model") modelPage();
})();
