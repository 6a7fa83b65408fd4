//! The `#[operation]` attribute of tooltable: one documented `async fn` becomes an MCP tool
//! (and, with `rest = "..."`, a REST endpoint). Use it through the `tooltable` crate.
//!
//! Rust 1.95 or newer, on any platform the compiler runs on.

mod attr;
mod doc;
mod expand;
mod rest;
mod signature;

/// Turns a documented `async fn` into a tooltable operation.
///
/// ```ignore
/// /// Read a model's merged state.
/// #[operation(rest = "GET /models/{id}/state", read_only, idempotent, title = "Get state")]
/// pub async fn get_state(cx: &Cx<Models>, args: GetStateArgs) -> Result<Value, ModelError> {
///     // ...
/// }
/// ```
///
/// Keys, all optional: `name = "..."`, `title = "..."`, the flags `read_only`, `destructive`,
/// `idempotent`, `open_world` (each also `= true|false`), `rest = "METHOD /path/{param}"`,
/// `body = "field"`, `status = 201`, `output = Type` or `output_schema = expr`, `input_schema = expr`
/// (a schema built at run time, for arguments no Rust type describes), and
/// `allow_unknown_args`. The doc comment is the tool's description.
#[proc_macro_attribute]
pub fn operation(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::operation(attr.into(), item.into()).into()
}
