//! What a call's context sees of its server (`ServerSide`, the author's API's trait).

use serde_json::Value;

use super::ServerInner;
use crate::api::context::{Cx, ServerSide};
use crate::api::descriptor::DynamicTool;
use crate::api::error::{Error, ErrorKind};
use crate::api::output::Output;
use crate::api::table_error::TableError;
use crate::api::tool::BoxFuture;

impl<S: Send + Sync + 'static> ServerSide<S> for ServerInner<S> {
    fn state(&self) -> &S {
        &self.state
    }

    fn name(&self) -> &str {
        &self.info.name
    }

    fn resource_updated(&self, uri: &str) {
        ServerInner::resource_updated(self, uri);
    }

    fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        ServerInner::add_tool(self, tool)
    }

    fn remove_tool(&self, name: &str) -> bool {
        ServerInner::remove_tool(self, name)
    }

    fn call_tool(&self, cx: Cx<S>, name: &str, args: Value) -> BoxFuture<'static, Result<Output, Error>> {
        let tool = self.tool(name);
        Box::pin(async move {
            let failed = |e: crate::api::rpc::RpcError| Error::new(ErrorKind::BadRequest, e.message);
            tool.map_err(failed)?.call(cx, Some(args)).await.map_err(failed)?
        })
    }
}
