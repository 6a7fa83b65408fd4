//! The sandbox's pages in a real headless Chromium, with the agent being the real `valem mcp
//! --url URL --browser`: the developer approves the elicited link, the agent is paired and
//! creates a model with a view, the browser edits it and sees the derived field change, the
//! agent hears `notifications/resources/updated` and reads the new state, the agent's change
//! appears in the open page without a reload; and each refusal of the verification page (deny,
//! a wrong code, a spent code, an expired pairing) with its answer on the page and to the agent.
//! The model page's screenshot in `docs/servers/valem.md` is taken here (`DOCS_REGENERATE=1`).

use std::path::Path;

use serde_json::{Value, json};
use tooltable_transports::forward::{Client, Options};
use valem::sandbox::SandboxLimits;

use crate::support::browser::Browser;
use crate::support::peer::Peer;
use crate::support::sandbox_host::Host;

fn valem() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_valem"))
}

fn host() -> Host {
    Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT })
}

/// `valem mcp --url HOST --browser`, the wait of one call `wait` seconds.
fn agent(host: &Host, wait: u64, capabilities: Value) -> Peer {
    let wait = wait.to_string();
    Peer::start(valem(), &["--url", &host.url, "--browser", "--pair-wait-secs", &wait], capabilities)
}

/// A call the agent expects to succeed: its structured result.
fn ok(peer: &mut Peer, id: u64, tool: &str, arguments: Value) -> Value {
    let result = peer.call(id, tool, arguments);
    assert_ne!(result["isError"], true, "{tool}: {result}");
    result["structuredContent"].clone()
}

fn failure(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    let body: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    body["error"].as_str().unwrap().to_owned()
}

/// An order whose total is derived, with a view of most of the page's components.
fn order() -> Value {
    json!({
        "id": "order",
        "schema": { "type": "object", "properties": {
            "customer": { "type": "string" },
            "price": { "type": "number", "minimum": 0 },
            "quantity": { "type": "integer", "minimum": 1 },
            "discount": { "type": "number", "minimum": 0, "maximum": 50 },
            "express": { "type": "boolean" },
            "shipping": { "type": "string", "enum": ["standard", "courier"] },
            "notes": { "type": "string" },
        } },
        "derivations": [
            { "path": "$.total", "expr": "price * quantity * (1 - discount / 100) + (express ? 15 : 0)" },
        ],
        "constraints": [
            { "id": "bulk", "expr": "quantity <= 100", "message": "At most 100 per order", "policy": "flag" },
        ],
        "viewDefinition": { "defaultView": "main", "views": [{ "id": "main", "label": "Order", "components": [
            { "id": "details", "type": "card", "label": "Details", "children": [
                { "id": "customer", "type": "textField", "bind": "$.customer", "label": "Customer", "required": true },
                { "id": "price", "type": "currencyField", "bind": "$.price", "label": "Unit price", "currency": "EUR" },
                { "id": "quantity", "type": "numericField", "bind": "$.quantity", "label": "Quantity" },
                { "id": "discount", "type": "percentField", "bind": "$.discount", "label": "Discount" },
                { "id": "express", "type": "toggleField", "bind": "$.express", "label": "Express delivery" },
                { "id": "shipping", "type": "selectField", "bind": "$.shipping", "label": "Shipping",
                  "options": [{ "value": "standard", "label": "Standard" }, { "value": "courier", "label": "Courier" }] },
                { "id": "notes", "type": "textAreaField", "bind": "$.notes", "label": "Notes", "rows": 2 },
            ] },
            { "id": "total", "type": "statTile", "bind": "$.total", "label": "Total (EUR)" },
            { "id": "speed", "type": "badge", "text": "$.express ? 'Express' : 'Standard'" },
            { "id": "large", "type": "alert", "severity": "warning", "visible": "total > 1000",
              "text": "'Large order: ' & $string(total) & ' EUR'" },
            { "id": "checks", "type": "validationSummary" },
        ] }] },
    })
}

/// The text of a component's part, e.g. `part("total", ".stat-value")`.
fn part(id: &str, css: &str) -> String {
    format!("[data-component-id=\"{id}\"] {css}")
}

/// A script that is true once the element `css` finds reads `text`.
fn reads(css: &str, text: &str) -> String {
    format!("const e = document.querySelector({css:?}); return e !== null && e.textContent.trim() === {text:?}")
}

/// A script that is true once the input named `name` holds `value`.
fn holds(name: &str, value: &str) -> String {
    format!("const e = document.querySelector('[name=\"{name}\"]'); return e !== null && e.value === {value:?}")
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Chromium and chromedriver: apt-get install chromium chromium-driver")]
fn the_developer_pairs_edits_and_sees_the_agents_changes_live() {
    let host = host();
    let mut peer = agent(&host, 30, json!({ "elicitation": { "url": {} } }));
    peer.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "pair_browser", "arguments": {} } }));
    let asked = peer.until(|m| m["method"] == "elicitation/create");
    let link = asked["params"]["url"].as_str().unwrap().to_owned();
    let code = link.split("#c=").nth(1).unwrap().to_owned();
    peer.send(json!({ "jsonrpc": "2.0", "id": asked["id"], "result": { "action": "accept" } }));

    // The developer opens the link: the code is filled in and leaves the address bar.
    let browser = Browser::open(host.runtime.handle());
    browser.goto(&link);
    browser.until("the code filled in", &holds("userCode", &code));
    assert_eq!(browser.url(), format!("{}/sandbox/verify", host.url), "the code left the address");
    browser.click("#approve");
    browser.until("the session's page", "return document.body.dataset.page === 'session'");
    let paired = peer.response(1)["result"]["structuredContent"].clone();
    assert_eq!(paired["status"], "paired", "{paired}");
    assert!(browser.text("main").contains("No models yet"), "an empty session");

    // The agent creates a model and fills it in; a reload of the session's page lists it.
    ok(&mut peer, 2, "create_model", json!({ "spec": order() }));
    let filled = json!({ "$.customer": "Ada", "$.price": 12.5, "$.quantity": 2, "$.discount": 0,
                         "$.express": false, "$.shipping": "standard" });
    let mutated = ok(&mut peer, 3, "mutate", json!({ "id": "order", "mutations": filled }));
    assert_eq!(mutated["derivedUpdated"], json!(["$.total"]), "{mutated}");
    let subscribed = peer.request(4, "resources/subscribe", json!({ "uri": "valem://state/order" }));
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    browser.goto(&format!("{}/sandbox/", host.url));
    browser.click("a[data-model-id=\"order\"]");

    // Its page renders the view, live.
    browser.until("the page is live", &reads("#live", "Live"));
    browser.until("the total shown", &reads(&part("total", ".stat-value"), "25"));
    assert_eq!(browser.text("#title"), "Order");
    browser.until("the quantity shown", &holds("$.quantity", "2"));
    browser.until(
        "the option shown",
        "return document.querySelector('[name=\"$.shipping\"]').selectedOptions[0].textContent === 'Standard'",
    );
    assert_eq!(browser.text(&part("speed", ".badge")), "Standard");
    assert_eq!(browser.eval("return document.querySelector('[data-component-id=\"large\"]').hidden"), true);

    // The developer edits a field: the derived total changes, and the agent hears of it.
    browser.eval("window.sameDocument = true; return null");
    browser.type_into("[name=\"$.quantity\"]", "3");
    browser.until("the derived total", &reads(&part("total", ".stat-value"), "37.5"));
    let updated = peer.until(|m| m["method"] == "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "valem://state/order");
    let read = ok(&mut peer, 5, "get_state", json!({ "id": "order" }));
    assert_eq!((read["quantity"].clone(), read["total"].clone()), (json!(3), json!(37.5)), "{read}");

    // The agent changes the model: the open page shows it without a reload.
    ok(&mut peer, 6, "mutate", json!({ "id": "order", "mutations": { "$.price": 400, "$.express": true } }));
    browser.until("the agent's price", &holds("$.price", "400"));
    browser.until("the agent's total", &reads(&part("total", ".stat-value"), "1215"));
    browser.until("the alert shown", "return !document.querySelector('[data-component-id=\"large\"]').hidden");
    assert_eq!(browser.text(&part("large", ".alert")), "Large order: 1215 EUR");
    assert_eq!(browser.text(&part("speed", ".badge")), "Express");
    assert_eq!(browser.eval("return document.querySelector('[name=\"$.express\"]').checked"), true);
    assert_eq!(browser.eval("return window.sameDocument === true"), true, "no reload");
    docs_screenshot(&browser);

    // A flagged constraint is listed; a value the schema refuses stays typed, its error beside
    // it, and the model keeps its state.
    browser.type_into("[name=\"$.quantity\"]", "120");
    browser.until(
        "the flagged constraint",
        &reads(&part("checks", "li[data-constraint-id=\"bulk\"]"), "At most 100 per order"),
    );
    browser.type_into("[name=\"$.discount\"]", "80");
    browser.until(
        "the refusal beside its field",
        &format!("return {}.length > 0", text_of(&part("discount", ".field-error"))),
    );
    browser.until("the typed value kept", &holds("$.discount", "80"));
    let read = ok(&mut peer, 7, "get_state", json!({ "id": "order" }));
    assert_eq!((read["discount"].clone(), read["quantity"].clone()), (json!(0), json!(120)), "{read}");
}

/// The trimmed text of the element `css` finds, as a script expression ('' when there is none).
fn text_of(css: &str) -> String {
    format!("(document.querySelector({css:?}) ? document.querySelector({css:?}).textContent.trim() : '')")
}

/// The screenshot of the model page in `docs/servers/valem.md`: taken at every run (it is a
/// PNG of the window), written under `DOCS_REGENERATE=1` only, since pixels differ from one
/// machine's fonts to another's.
fn docs_screenshot(browser: &Browser) {
    browser.eval("document.activeElement.blur(); return null");
    let png = browser.screenshot();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/servers");
    let file = docs.join("valem-model-page.png");
    if std::env::var_os("DOCS_REGENERATE").is_some_and(|v| v == "1") {
        std::fs::write(&file, &png).unwrap();
    }
    assert!(std::fs::read(&file).is_ok_and(|kept| kept.starts_with(b"\x89PNG")), "{} is kept", file.display());
    let page = std::fs::read_to_string(docs.join("valem.md")).unwrap();
    assert!(page.contains("(valem-model-page.png)"), "docs/servers/valem.md shows the screenshot");
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Chromium and chromedriver: apt-get install chromium chromium-driver")]
fn the_verification_page_answers_a_wrong_code_a_denial_and_an_expired_pairing() {
    let host = host();
    let mut peer = agent(&host, 1, json!({}));
    let pending = ok(&mut peer, 1, "pair_browser", json!({}));
    let code = pending["userCode"].as_str().unwrap().to_owned();
    let browser = Browser::open(host.runtime.handle());
    let outcome = |browser: &Browser, typed: &str, button: &str, expected: &str| {
        browser.goto(&format!("{}/sandbox/verify", host.url));
        browser.type_into("#user-code", typed);
        browser.click(button);
        browser.until(expected, &reads("#outcome", expected));
    };

    outcome(&browser, "12", "#approve", "a code is 8 letters, shown as XXXX-XXXX: check what you typed");
    let wrong = if code == "BBBB-BBBB" { "CCCC-CCCC" } else { "BBBB-BBBB" };
    outcome(&browser, wrong, "#approve", "no pairing waits with this code: check it against the one your agent shows");
    assert_eq!(ok(&mut peer, 2, "pair_browser", json!({}))["status"], "pending", "a wrong code leaves it waiting");

    outcome(&browser, &code, "#deny", "Denied. Your agent is told; you can close this page.");
    let denied = peer.call(3, "pair_browser", json!({}));
    assert_eq!(failure(&denied), "Pairing failed (access_denied) — call pair_browser again for a fresh link.");

    let fresh = ok(&mut peer, 4, "pair_browser", json!({}));
    host.later(600);
    let code = fresh["userCode"].as_str().unwrap();
    outcome(&browser, code, "#approve", "this pairing expired: ask your agent to pair again for a fresh link");
    let expired = peer.call(5, "pair_browser", json!({}));
    assert_eq!(failure(&expired), "Pairing failed (expired_token) — call pair_browser again for a fresh link.");
    assert_eq!(browser.eval("return document.cookie.includes('valem_session')"), false, "no session was opened");
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Chromium and chromedriver: apt-get install chromium chromium-driver")]
fn a_device_polling_too_fast_is_slowed_and_a_spent_code_is_refused_on_the_page_and_the_api() {
    let host = host();
    let device = Client::new(&host.url, &Options::default()).unwrap();
    let post = |path: &str, body: Option<&Value>| {
        host.runtime.block_on(async {
            let answer = device.send_with(&hyper::Method::POST, path, body, &[]).await.unwrap();
            (answer.status, serde_json::from_slice::<Value>(&answer.body).unwrap())
        })
    };
    let (status, minted) = post("/sandbox/pair", None);
    assert_eq!(status, 200, "{minted}");
    let poll = json!({ "pairCode": minted["pairCode"], "deviceSecret": minted["deviceSecret"] });
    assert_eq!(post("/sandbox/pair/token", Some(&poll)).1["error"], "authorization_pending");
    let (status, slowed) = post("/sandbox/pair/token", Some(&poll));
    assert_eq!((status, slowed["error"].as_str()), (429, Some("slow_down")), "{slowed}");

    let browser = Browser::open(host.runtime.handle());
    browser.goto(minted["verificationUriComplete"].as_str().unwrap());
    browser.click("#approve");
    browser.until("the session's page", "return document.body.dataset.page === 'session'");
    host.later(1);
    let (status, session) = post("/sandbox/pair/token", Some(&poll));
    assert_eq!(status, 200, "{session}");
    host.later(1);
    let (status, spent) = post("/sandbox/pair/token", Some(&poll));
    assert_eq!((status, spent["error"].as_str()), (400, Some("invalid_grant")), "{spent}");

    // The same link, opened again in another browser.
    let other = Browser::open(host.runtime.handle());
    other.goto(minted["verificationUriComplete"].as_str().unwrap());
    other.click("#approve");
    let refused = "no pairing waits with this code: check it against the one your agent shows";
    other.until("the spent code refused", &reads("#outcome", refused));
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Chromium and chromedriver: apt-get install chromium chromium-driver")]
fn a_model_page_needs_its_own_session() {
    let host = host();
    let mut owner = agent(&host, 1, json!({}));
    let code = ok(&mut owner, 1, "pair_browser", json!({}))["userCode"].as_str().unwrap().to_owned();
    let browser = Browser::open(host.runtime.handle());
    browser.goto(&format!("{}/sandbox/verify#c={code}", host.url));
    browser.click("#approve");
    browser.until("the session's page", "return document.body.dataset.page === 'session'");
    assert_eq!(ok(&mut owner, 2, "pair_browser", json!({}))["status"], "paired");
    ok(&mut owner, 3, "create_model", json!({ "spec": order() }));
    let page = format!("{}/sandbox/models/order", host.url);

    let stranger = Browser::open(host.runtime.handle());
    stranger.goto(&page);
    assert_eq!(stranger.text("h1"), "Not paired", "no session, no page");

    let mut other = agent(&host, 1, json!({}));
    let code = ok(&mut other, 1, "pair_browser", json!({}))["userCode"].as_str().unwrap().to_owned();
    stranger.goto(&format!("{}/sandbox/verify#c={code}", host.url));
    stranger.click("#approve");
    stranger.until("the other session's page", "return document.body.dataset.page === 'session'");
    stranger.goto(&page);
    stranger.until("another session's model not found", &format!("return {}.includes('no model')", text_of("#live")));

    browser.goto(&page);
    browser.until("its own session's page", &reads("#live", "Live"));
}
