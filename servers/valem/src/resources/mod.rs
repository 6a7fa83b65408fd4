//! Reading material served as MCP resources: the authoring guides and the bundled example
//! specs (working models, each passing its own tests).

/// A guide: its name in `valem://guide/{name}`, a description, and its markdown.
pub struct Guide {
    pub name: &'static str,
    pub description: &'static str,
    pub text: &'static str,
}

pub const GUIDES: &[Guide] = &[
    Guide {
        name: "model-spec-format",
        description: "The ModelSpec authoring guide: sections, addresses, what a write answers, worked examples",
        text: include_str!("guides/model-spec-format.md"),
    },
    Guide {
        name: "jsonata-gotchas",
        description: "JSONata pitfalls: missing versus null, singleton sequences, bindings, rounding",
        text: include_str!("guides/jsonata-gotchas.md"),
    },
    Guide {
        name: "spec-evolution",
        description: "Evolving a live model's spec: targeted diffs, backfill, version guards, stranded values",
        text: include_str!("guides/spec-evolution.md"),
    },
    Guide {
        name: "view-system",
        description: "Views: the viewDefinition, components, bind addresses and what get_view returns",
        text: include_str!("guides/view-system.md"),
    },
];

/// The bundled example specs by name, as `valem://examples/{name}` serves them.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("body-mass-index", include_str!("examples/body-mass-index.json")),
    ("event-registration", include_str!("examples/event-registration.json")),
    ("expense-report", include_str!("examples/expense-report.json")),
    ("loan-payment", include_str!("examples/loan-payment.json")),
    ("order-total", include_str!("examples/order-total.json")),
    ("savings-plan", include_str!("examples/savings-plan.json")),
    ("shipping-quote", include_str!("examples/shipping-quote.json")),
];

pub fn guide_uri(name: &str) -> String {
    format!("valem://guide/{name}")
}

pub fn example_uri(name: &str) -> String {
    format!("valem://examples/{name}")
}

/// What an example models: its `_description`.
pub fn example_description(text: &str) -> String {
    let spec: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    spec["_description"].as_str().unwrap_or_default().to_owned()
}

/// The example spec called `name`, as JSON text.
pub fn example(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
