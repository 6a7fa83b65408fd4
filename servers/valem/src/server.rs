//! The server: the tools in the order `tools/list` shows them, and the resources: the state of
//! each model, the ModelSpec schema, the guides and the bundled examples.

use serde_json::Value;
use tooltable::content::ResourceContents;
use tooltable::resources::{Resource, ResourceTemplate};
use tooltable::tool::{Output, TableError};
use tooltable::{Error, ErrorKind, Server, table};

use std::sync::Arc;

use tooltable_transports::cli::RemoteTarget;

use crate::audit::AuditStore;
use crate::browser::Link;
use crate::options::{Limits, Options};
use crate::resources;
use crate::store::ModelStore;
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;
use crate::tools::registry::Models;
use crate::tools::{
    audit, authoring, blobs, evaluate, evolving, guidance, models, patching, reading, snapshots, spec_schema, views,
    writing,
};

const INSTRUCTIONS: &str = "Valem runs reactive models: a JSON document whose derived fields, \
constraints, live schema values and effects are JSONata expressions. Author a spec with \
get_domain_guidance, validate_spec, eval_expression, test_spec and dry_run; then create_model and \
drive it with mutate ({\"$.path\": value}) or patch_model (RFC 6902, for array inserts, \
removals and reorders); every write recomputes what it affects. Read with get_state (narrow it \
with paths and depth), get_field and explain; get_audit and verify_audit give the hash-chained \
record of every write; snapshot before a risky change, restore to roll back. Addresses are \
canonical JSON Path ($.a.b, $.items[0].x).";

/// What browser mode adds to the instructions.
const PAIRED_INSTRUCTIONS: &str = " This session works with a developer's browser through the Valem sandbox: \
call pair_browser first and show the developer the link it gives; the models you create (give each a \
viewDefinition) then appear in their browser as forms, and every edit they make reaches you as \
notifications/resources/updated on valem://state/<id> once you subscribe.";

/// The authoring tools: they touch no model, so they run in this process even in remote mode
/// (`valem mcp --url`), with the server down too.
pub const LOCAL_TOOLS: [&str; 5] = ["get_domain_guidance", "validate_spec", "eval_expression", "test_spec", "dry_run"];

/// The server with the default limits.
pub fn server() -> Result<Server<Models>, TableError> {
    server_with(Limits::default())
}

pub fn server_with(limits: Limits) -> Result<Server<Models>, TableError> {
    server_on(Models::new(limits), Mode::Own)
}

/// The server as a cache of `store`: models, audit trails and blobs outlive the process.
pub fn server_durable(limits: Limits, store: Arc<dyn ModelStore>) -> Result<Server<Models>, TableError> {
    durable_on(limits, store, Mode::Own)
}

fn durable_on(limits: Limits, store: Arc<dyn ModelStore>, mode: Mode) -> Result<Server<Models>, TableError> {
    let server = server_on(Models::durable(limits, Arc::clone(&store)), mode)?;
    // Subscribers hear of the commits other instances make too (the copy cached here is
    // reloaded by its revision at its next use). The handle is weak: the store the server
    // holds keeps this callback.
    let weak = server.downgrade();
    store.watch(Arc::new(move |id: &str| {
        if let Some(server) = weak.upgrade() {
            Models::announce(&server, id);
        }
    }));
    Ok(server)
}

/// The server `options` describe for the command line, `remote` being `mcp --url`'s target:
/// paired with a browser under `--browser` (see [`crate::browser`]), else [`server_from`].
/// `--browser` without a URL has no sandbox to pair with: it is warned of, and the models live
/// here.
pub fn server_for(
    options: Options,
    remote: Option<&mut RemoteTarget>,
) -> Result<Server<Models>, Box<dyn std::error::Error>> {
    match remote {
        Some(target) if options.pairing.browser => {
            let link = Link::new(&target.url, &target.options, options.pairing.pair_wait())?;
            target.options.hook = Some(link.hook());
            let server = server_on(Models::new(options.limits), Mode::Browser)?;
            server.add_tool(link.tool())?;
            Ok(server)
        }
        None if options.pairing.browser => {
            tracing::warn!(
                "--browser pairs with the sandbox of a valem serve: give its --url (or VALEM_URL) too; the models live in this process"
            );
            server_from(options)
        }
        _ => server_from(options),
    }
}

/// The server `options` describe: durable under `--data DIR` or `--database URL`, else in
/// memory; its startup line names the sandbox under `--sandbox`.
pub fn server_from(options: Options) -> Result<Server<Models>, Box<dyn std::error::Error>> {
    let busy_timeout = options.store_busy_timeout();
    let mode = if options.sandbox.sandbox { Mode::Sandbox } else { Mode::Own };
    Ok(match (&options.data, &options.database.url) {
        (Some(dir), _) => durable_on(options.limits, Arc::new(SqliteStore::open(dir, busy_timeout)?), mode)?,
        (None, Some(url)) => {
            let store = PostgresStore::open(&url.0, options.database.options())?;
            durable_on(options.limits, Arc::new(store), mode)?
        }
        (None, None) if options.audit_tamper_hook => crate::audit_hook::server(options.limits)?,
        (None, None) => server_on(Models::new(options.limits), mode)?,
    })
}

/// The server, its audit trails kept in `audit`.
pub fn server_with_audit(limits: Limits, audit: Arc<dyn AuditStore>) -> Result<Server<Models>, TableError> {
    server_on(Models::with_audit(limits, audit), Mode::Own)
}

/// Whose models the server serves: its own, its own with a sandbox's sessions' beside them
/// (`serve --sandbox`), or (in browser mode) a paired session's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Own,
    Sandbox,
    Browser,
}

/// What the startup line adds under `serve --sandbox`.
const SANDBOX_NOTE: &str = "sandbox at /sandbox: agents pair with `mcp --url URL --browser`, \
    developers open /sandbox/verify (its pages and pairing routes need no API key)";

fn server_on(models: Models, mode: Mode) -> Result<Server<Models>, TableError> {
    let note = match mode {
        Mode::Sandbox => format!("{}; {SANDBOX_NOTE}", models.describe_store()),
        Mode::Own | Mode::Browser => models.describe_store(),
    };
    let (instructions, create) = match mode {
        Mode::Own | Mode::Sandbox => (INSTRUCTIONS.to_owned(), table![models::create_model]),
        Mode::Browser => (format!("{INSTRUCTIONS}{PAIRED_INSTRUCTIONS}"), table![models::create_model_paired]),
    };
    let mut tools = table![models::list_models];
    tools.extend(create);
    tools.extend(table![
        models::get_model_info,
        models::get_spec,
        reading::get_state,
        reading::get_field,
        reading::get_effective_schema,
        writing::mutate,
        patching::patch_model,
        reading::explain,
        reading::get_history,
        audit::get_audit,
        audit::verify_audit,
        snapshots::snapshot,
        snapshots::restore,
        evolving::evolve_spec,
        models::delete_model,
        views::get_view,
        guidance::get_domain_guidance,
        authoring::validate_spec,
        evaluate::eval_expression,
        authoring::test_spec,
        authoring::dry_run,
        blobs::upload_blob,
        blobs::download_blob,
    ]);
    let mut builder = Server::builder(models)
        .startup_note(note)
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(instructions)
        .local_tools(LOCAL_TOOLS)
        .tools(tools)
        .resource_template(
            ResourceTemplate::new("valem://state/{modelId}", "model-state")
                .description("A model's live merged state; subscribe to hear of every committed mutation")
                .mime_type("application/json"),
            |cx, req| async move {
                let id = req.params.get("modelId").cloned().unwrap_or_default();
                let state = read_state(cx, id).await?;
                Ok(vec![ResourceContents::text(req.uri, "application/json", state.to_string())])
            },
        )
        .resource_template(
            ResourceTemplate::new("valem://examples/{name}", "example-spec")
                .description(format!("A bundled example ModelSpec, a working model to learn from: {}", example_names()))
                .mime_type("application/json"),
            |_, req| async move {
                let name = req.params.get("name").cloned().unwrap_or_default();
                let text = resources::example(&name).ok_or_else(|| {
                    Error::new(
                        ErrorKind::NotFound,
                        format!("there is no example {name:?}; the examples are {}", example_names()),
                    )
                })?;
                Ok(vec![ResourceContents::text(req.uri, "application/json", text)])
            },
        );
    let schemas: [(Resource, SchemaOf); 2] = [
        (
            Resource::new("valem://schema/model-spec", "model-spec-schema")
                .description("The full ModelSpec JSON Schema"),
            spec_schema::model_spec,
        ),
        (
            Resource::new("valem://schema/spec-evolution", "spec-evolution-schema")
                .description("The SpecEvolution JSON Schema"),
            spec_schema::spec_evolution,
        ),
    ];
    for (resource, schema) in schemas {
        let resource = resource.mime_type("application/json");
        builder = builder.resource(resource, move |_, req| async move {
            let text = serde_json::to_string_pretty(schema()).unwrap_or_default();
            Ok(vec![ResourceContents::text(req.uri, "application/json", text)])
        });
    }
    for (name, text) in resources::EXAMPLES {
        let description = resources::example_description(text);
        let resource = Resource::new(resources::example_uri(name), *name)
            .description(format!("A bundled example ModelSpec: {description}"))
            .mime_type("application/json");
        builder = builder.resource(resource, move |_, req| async move {
            Ok(vec![ResourceContents::text(req.uri, "application/json", *text)])
        });
    }
    for guide in resources::GUIDES {
        let resource = Resource::new(resources::guide_uri(guide.name), guide.name)
            .description(guide.description)
            .mime_type("text/markdown");
        let text = guide.text;
        builder = builder.resource(resource, move |_, req| async move {
            Ok(vec![ResourceContents::text(req.uri, "text/markdown", text)])
        });
    }
    builder.build()
}

/// A model's merged state, read through `get_state`: in process, or from the remote instance when
/// the tool is forwarded, so a read sees the state wherever the models live.
async fn read_state(cx: tooltable::Cx<Models>, id: String) -> Result<Value, Error> {
    match cx.call_tool("get_state", serde_json::json!({ "id": id })).await? {
        Output::Json(state) => Ok(state),
        Output::Content(_) => Err(Error::new(ErrorKind::Internal, "get_state answered no JSON")),
    }
}

/// A bundled schema, built on first read.
type SchemaOf = fn() -> &'static Value;

fn example_names() -> String {
    resources::EXAMPLES.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}
