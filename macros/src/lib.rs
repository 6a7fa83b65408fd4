//! The `#[tool]` attribute of tooltable: one documented `async fn` becomes an MCP tool (and, with
//! `rest = "..."`, a REST endpoint). Use it through the `tooltable` crate, whose re-export
//! documents every key with an example.
//!
//! Rust 1.95 or newer, on any platform the compiler runs on.

#![deny(unreachable_pub)]
#![warn(missing_docs, missing_debug_implementations)]

mod attr;
mod doc;
mod expand;
mod rest;
mod signature;

/// Makes a documented `async fn` a tooltable tool; see `tooltable::tool` for its keys.
#[proc_macro_attribute]
pub fn tool(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::tool(attr.into(), item.into()).into()
}
