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
        description: "The ModelSpec authoring guide: sections, path notation, JSONata rules",
        text: include_str!("guides/model-spec-format.md"),
    },
    Guide {
        name: "jsonata-gotchas",
        description: "JSONata pitfalls: missing versus null, singleton sequences, bindings, rounding",
        text: include_str!("guides/jsonata-gotchas.md"),
    },
    Guide {
        name: "view-system",
        description: "Views: the viewDefinition's views, components and bind addresses",
        text: include_str!("guides/view-system.md"),
    },
];

/// The bundled example specs by name, as `valem://examples/{name}` serves them.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("body-mass-index", include_str!("examples/body-mass-index.json")),
    ("loan-payment", include_str!("examples/loan-payment.json")),
    ("order-total", include_str!("examples/order-total.json")),
];

pub fn guide_uri(name: &str) -> String {
    format!("valem://guide/{name}")
}

/// The example spec called `name`, as JSON text.
pub fn example(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
