//! `evolve_spec`: the spec changed in place, the model's values kept.

use serde_json::{Value, json};
use tooltable::Server;
use valem::tools::registry::Models;

use crate::support::in_process::call;

fn loan() -> Server<Models> {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "loan",
        "version": "1.0.0",
        "schema": { "type": "object", "properties": { "amount": { "type": "number" }, "years": { "type": "integer" }, "note": { "type": "string" } } },
        "constants": { "rate": 0.05 },
        "derivations": [{ "path": "$.interest", "expr": "amount * $const.rate" }, { "path": "$.months", "expr": "years * 12" }],
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    call(&server, "mutate", json!({ "id": "loan", "mutations": { "$.amount": 1000, "$.years": 2, "$.note": "x" } }))
        .unwrap();
    server
}

fn evolve(server: &Server<Models>, evolution: Value) -> Result<Value, Value> {
    call(server, "evolve_spec", json!({ "id": "loan", "evolution": evolution }))
}

fn state(server: &Server<Models>) -> Value {
    call(server, "get_state", json!({ "id": "loan" })).unwrap()
}

#[test]
fn a_stale_expected_version_is_a_version_conflict() {
    let server = loan();
    let conflict = evolve(&server, json!({ "expectedVersion": "0.9.0", "newVersion": "2.0.0" })).unwrap_err();
    assert_eq!(
        (conflict["error"].clone(), conflict["expected"].clone(), conflict["actual"].clone()),
        (json!("Version conflict"), json!("0.9.0"), json!("1.0.0"))
    );
    assert_eq!(call(&server, "get_model_info", json!({ "id": "loan" })).unwrap()["version"], "1.0.0");
}

#[test]
fn an_evolution_keeps_the_values_and_backfills_only_the_empty_fields() {
    let server = loan();
    let done = evolve(
        &server,
        json!({
            "expectedVersion": "1.0.0",
            "newVersion": "1.1.0",
            "removeDerivations": ["$.months", "$.absent"],
            "upsertDerivations": [{ "path": "$.interest", "expr": "amount * $const.rate * years" }, { "path": "$.label", "expr": "term & ' years'" }],
            "upsertConstants": { "rate": 0.1 },
            "upsertSchemaNodes": [{ "path": "$.term", "schema": { "type": "string" }, "required": true }],
            "backfill": { "$.term": "two", "$.note": "ignored: it holds a value" },
        }),
    )
    .unwrap();
    assert_eq!(done, json!({ "id": "loan", "version": "1.1.0" }));
    assert_eq!(
        state(&server),
        json!({ "amount": 1000, "years": 2, "note": "x", "term": "two", "interest": 200, "label": "two years" })
    );
    let spec = call(&server, "get_spec", json!({ "id": "loan" })).unwrap();
    assert_eq!(spec["schema"]["required"], json!(["term"]));
    let paths: Vec<_> = spec["derivations"].as_array().unwrap().iter().map(|d| d["path"].clone()).collect();
    assert_eq!(paths, [json!("$.interest"), json!("$.label")], "an upsert keeps its place, a new one is appended");
    assert_eq!(call(&server, "get_history", json!({ "id": "loan" })).unwrap(), json!([]));
    // The model goes on reacting under the new spec.
    call(&server, "mutate", json!({ "id": "loan", "mutations": { "$.years": 3 } })).unwrap();
    assert_eq!(state(&server)["interest"], 300);
}

#[test]
fn a_schema_that_refuses_held_values_strands_them_and_changes_nothing() {
    let server = loan();
    let before = state(&server);
    let schema = json!({ "type": "object", "properties": { "amount": { "type": "string" }, "years": { "type": "integer", "maximum": 1 } } });
    let stranded = evolve(&server, json!({ "newSchema": schema })).unwrap_err();
    assert_eq!(stranded["error"], "Incompatible evolution");
    assert_eq!(stranded["message"], "Evolution of model 'loan' would strand 2 existing value(s)");
    let paths: Vec<_> = stranded["incompatibilities"].as_array().unwrap().iter().map(|i| i["path"].clone()).collect();
    assert_eq!(paths, [json!("$.amount"), json!("$.years")]);
    assert_eq!(state(&server), before);
    assert_eq!(
        call(&server, "get_spec", json!({ "id": "loan" })).unwrap()["schema"]["properties"]["amount"]["type"],
        "number"
    );
}

#[test]
fn evolutions_that_do_not_apply_say_why() {
    let server = loan();
    let cases = [
        (
            json!({ "newSchema": {}, "removeSchemaNodes": ["$.note"] }),
            "`newSchema` replaces the whole section: give it or `removeSchemaNodes`, not both",
        ),
        (json!({ "newConstants": {}, "upsertConstants": {} }), "`newConstants` replaces every constant"),
        (json!({ "removeConstants": ["rate"] }), "the constant \"rate\" is still used as `$const.rate`"),
        (json!({ "removeSchemaNodes": ["$.nothing"] }), "the schema has no node at $.nothing"),
        (json!({ "upsertSchemaNodes": [{ "path": "$", "schema": {} }] }), "cannot be `$`"),
        (json!({ "upsertSchemaDefs": { "Money": null } }), "`upsertSchemaDefs.Money` is null"),
        (json!({ "upsertDerivations": [{ "path": "$.bad", "expr": "(" }] }), "Evolved spec failed validation: "),
    ];
    for (evolution, expected) in cases {
        let failure = evolve(&server, evolution.clone()).unwrap_err();
        let message = failure["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{evolution}: {failure}");
        assert_eq!(failure["error"], "Invalid evolution", "{evolution}: {failure}");
    }
    // The inputSchema names every key: an unknown one is refused before the evolution runs.
    let unknown = evolve(&server, json!({ "upsertDerivation": [] })).unwrap_err();
    assert_eq!(unknown["error"], "Invalid arguments", "{unknown}");
    assert!(unknown.to_string().contains("upsertDerivation"), "{unknown}");
    assert_eq!(call(&server, "get_model_info", json!({ "id": "loan" })).unwrap()["derivationCount"], 2);
}

#[test]
fn schema_definitions_still_referenced_are_kept() {
    let server = loan();
    let money = json!({ "upsertSchemaDefs": { "Money": { "type": "number", "minimum": 0 } }, "upsertSchemaNodes": [{ "path": "$.fee", "schema": { "$ref": "#/$defs/Money" } }] });
    evolve(&server, money).unwrap();
    let refused = evolve(&server, json!({ "removeSchemaDefs": ["Money"] })).unwrap_err();
    assert_eq!(refused["message"], "the definition \"Money\" is still referenced at /properties/fee");
    let through =
        evolve(&server, json!({ "upsertSchemaNodes": [{ "path": "$.fee.cents", "schema": {} }] })).unwrap_err();
    assert!(through["message"].as_str().unwrap().contains("goes through a `$ref`"), "{through}");
    evolve(&server, json!({ "removeSchemaNodes": ["$.fee"], "removeSchemaDefs": ["Money"] })).unwrap();
    let negative = call(&server, "mutate", json!({ "id": "loan", "mutations": { "$.fee": -1 } }));
    assert!(negative.is_ok(), "the node is gone with its definition");
}

#[test]
fn the_final_recompute_evaluates_no_constraint_but_a_backfill_cycle_does() {
    let server = loan();
    let strict = json!({ "id": "small", "expr": "amount < 500", "message": "too large", "policy": "rollback" });
    let evolved = evolve(
        &server,
        json!({ "upsertConstraints": [strict], "upsertDerivations": [{ "path": "$.double", "expr": "amount * 2" }] }),
    );
    assert!(evolved.is_ok(), "the held amount is not re-checked: {evolved:?}");
    assert_eq!(state(&server)["double"], 2000, "derivations are recomputed");
    let limit = json!({ "id": "short", "expr": "$length(term) < 3", "message": "too long", "policy": "rollback" });
    let backfilled =
        evolve(&server, json!({ "upsertConstraints": [limit], "backfill": { "$.term": "twenty" } })).unwrap_err();
    assert_eq!(backfilled["error"], "Constraint violation", "{backfilled}");
    assert_eq!(call(&server, "get_model_info", json!({ "id": "loan" })).unwrap()["constraintCount"], 1);
}
