//! The public surface a server author writes with: every type prints with `{:?}`, so a test
//! failure or a log line shows what it holds.

use std::fmt::Debug;

fn debug<T: Debug>() {}

#[test]
fn the_public_types_implement_debug() {
    debug::<tooltable::Server<()>>();
    debug::<tooltable::ServerBuilder<()>>();
    debug::<tooltable::Cx<()>>();
    debug::<tooltable::DynamicTool<()>>();
    debug::<tooltable::ToolDescriptor>();
    debug::<tooltable::Annotations>();
    debug::<tooltable::RestRoute>();
    debug::<tooltable::Error>();
    debug::<tooltable::ErrorKind>();
    debug::<tooltable::ToolFailure>();
    debug::<tooltable::CallOutput>();
    debug::<tooltable::Content>();
    debug::<tooltable::ContentBlock>();
    debug::<tooltable::ResourceContents>();
    debug::<tooltable::Resource>();
    debug::<tooltable::ResourceTemplate>();
    debug::<tooltable::ResourceRequest>();
    debug::<tooltable::Prompt>();
    debug::<tooltable::PromptArgument>();
    debug::<tooltable::PromptMessage>();
    debug::<tooltable::PromptResult>();
    debug::<tooltable::CompletionRequest>();
    debug::<tooltable::InputRequest>();
    debug::<tooltable::ClientRequestError>();
    debug::<tooltable::UrlElicitation>();
    debug::<tooltable::UrlElicitationRequired>();
    debug::<tooltable::LogLevel>();
    debug::<tooltable::TableError>();
    debug::<tooltable::StateKey>();
    debug::<tooltable::StateError>();
    debug::<tooltable::CacheHint>();
    debug::<tooltable::Config>();
    debug::<tooltable::ServerInfo>();
    debug::<tooltable::transport::Session<()>>();
    debug::<tooltable::transport::Outgoing>();
    debug::<tooltable::transport::Destination>();
    debug::<tooltable::transport::RequestContext>();
    debug::<tooltable::Principal>();
    debug::<tooltable::WeakServer<()>>();
}
