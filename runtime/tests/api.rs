//! The public surface a server author writes with: every type prints with `{:?}`, so a test
//! failure or a log line shows what it holds.

use std::fmt::Debug;

fn debug<T: Debug>() {}

#[test]
fn the_public_types_implement_debug() {
    debug::<tooltable::Server<()>>();
    debug::<tooltable::ServerBuilder<()>>();
    debug::<tooltable::Cx<()>>();
    debug::<tooltable::tool::DynamicTool<()>>();
    debug::<tooltable::tool::ToolDescriptor>();
    debug::<tooltable::tool::Annotations>();
    debug::<tooltable::tool::RestRoute>();
    debug::<tooltable::Error>();
    debug::<tooltable::ErrorKind>();
    debug::<tooltable::tool::Output>();
    debug::<tooltable::content::Content>();
    debug::<tooltable::content::ContentBlock>();
    debug::<tooltable::content::ResourceContents>();
    debug::<tooltable::resources::Resource>();
    debug::<tooltable::resources::ResourceTemplate>();
    debug::<tooltable::resources::ResourceRequest>();
    debug::<tooltable::prompts::Prompt>();
    debug::<tooltable::prompts::PromptArgument>();
    debug::<tooltable::prompts::PromptMessage>();
    debug::<tooltable::prompts::PromptResult>();
    debug::<tooltable::prompts::CompletionRequest>();
    debug::<tooltable::context::InputRequest>();
    debug::<tooltable::context::ClientRequestError>();
    debug::<tooltable::context::UrlElicitation>();
    debug::<tooltable::context::UrlElicitationRequired>();
    debug::<tooltable::context::LogLevel>();
    debug::<tooltable::tool::TableError>();
    debug::<tooltable::server::StateKey>();
    debug::<tooltable::server::StateError>();
    debug::<tooltable::server::CacheHint>();
    debug::<tooltable::server::Config>();
    debug::<tooltable::server::ServerInfo>();
    debug::<tooltable::transport::Session<()>>();
    debug::<tooltable::transport::Outgoing>();
    debug::<tooltable::transport::Destination>();
    debug::<tooltable::transport::RequestContext>();
    debug::<tooltable::Principal>();
    debug::<tooltable::server::WeakServer<()>>();
}
