//! Composition in process: another server's tools, prompts and resources served as this one's.

use std::sync::Arc;

use serde_json::Value;

use super::{Server, ServerBuilder};
use crate::api::context::Cx;
use crate::api::descriptor::{CallLimits, DynamicTool};
use crate::api::error::{Error, ErrorKind};
use crate::api::output::Output;
use crate::api::prompts::RegisteredPrompt;
use crate::api::resources::{StaticResource, TemplateResource};
use crate::api::tool::BoxFuture;

impl<S: Send + Sync + 'static> ServerBuilder<S> {
    /// Serves `server`'s tools, prompts and resources as this server's: its tools and prompts
    /// named `<prefix>_<name>`, its resources and resource templates at their own URIs. Each runs
    /// in `server` with its own state, its calls' progress, logs and questions to the client going
    /// through the call of this server that runs them. What `server` has when it is mounted is
    /// served (tools it adds later are not), and a name or URI that two servers share is a
    /// [`TableError`](crate::tool::TableError) at [`build`](Self::build). A call passes this
    /// server's layers, then `server`'s layers and its tool's limits.
    ///
    /// ```
    /// use tooltable::{Error, Server, table, tool};
    ///
    /// /// Adds two numbers.
    /// #[tool(read_only)]
    /// async fn add(args: Pair) -> Result<i64, Error> {
    ///     Ok(args.a + args.b)
    /// }
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Pair { a: i64, b: i64 }
    ///
    /// let maths = Server::builder(()).tools(table![add]).build()?;
    /// let gateway = Server::builder(()).mount("maths", maths).build()?;
    /// let names: Vec<String> = gateway.table().descriptors().into_iter().map(|d| d.name).collect();
    /// assert_eq!(names, ["maths_add"]);
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(gateway.call("maths_add", serde_json::json!({ "a": 1, "b": 2 })).await.unwrap(), 3);
    /// # });
    /// # Ok::<(), tooltable::tool::TableError>(())
    /// ```
    pub fn mount<T: Send + Sync + 'static>(mut self, prefix: &str, server: Server<T>) -> Self {
        for descriptor in server.table().descriptors() {
            let name = descriptor.name.clone();
            let mut descriptor = descriptor;
            descriptor.name = format!("{prefix}_{name}");
            // The mounted server holds its calls to their limits; holding them here too would
            // count each call twice.
            descriptor.limits = CallLimits::default();
            let inner = server.clone();
            let handler = Arc::new(move |cx: Cx<S>, args: Value| {
                let (inner, name) = (inner.clone(), name.clone());
                Box::pin(async move {
                    let cx = cx.on_server(inner.side());
                    match inner.call_tool(cx, &name, Some(args)).await {
                        Ok(outcome) => outcome,
                        Err(fault) => Err(Error::new(ErrorKind::InvalidInput, fault.message)),
                    }
                }) as BoxFuture<'static, Result<Output, Error>>
            });
            self.mounted_tools.push(DynamicTool { descriptor, handler });
        }
        for registered in &server.0.prompts {
            let mut prompt = registered.prompt.clone();
            prompt.name = format!("{prefix}_{}", prompt.name);
            let (inner, get) = (server.clone(), Arc::clone(&registered.get));
            let get = Arc::new(move |cx: Cx<S>, args| get(cx.on_server(inner.side()), args));
            self.prompts.push(RegisteredPrompt { prompt, get });
        }
        for resource in &server.0.resources {
            let (inner, read) = (server.clone(), Arc::clone(&resource.read));
            let read = Arc::new(move |cx: Cx<S>, request| read(cx.on_server(inner.side()), request));
            self.resources.push(StaticResource { resource: resource.resource.clone(), read });
        }
        for template in &server.0.templates {
            let (inner, read) = (server.clone(), Arc::clone(&template.read));
            let read = Arc::new(move |cx: Cx<S>, request| read(cx.on_server(inner.side()), request));
            self.templates.push(TemplateResource { template: template.template.clone(), read });
        }
        self
    }
}
