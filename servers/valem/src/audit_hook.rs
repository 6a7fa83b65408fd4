//! `--audit-tamper-hook`: a hidden option that adds the tool `tamper_audit_record`, which alters
//! a stored audit record in place as an attacker with access to the store would, so that a
//! session over the real transports can show `verify_audit` finding it. Never for production:
//! it exists to prove the chain, and only the in-memory store has it.

use std::sync::Arc;

use serde_json::{Value, json};
use tooltable::tool::{DynamicTool, Output, TableError, ToolDescriptor};
use tooltable::{Error, ErrorKind, Server};

use crate::audit::MemoryAuditStore;
use crate::options::Limits;
use crate::tools::registry::Models;

/// The in-memory server with the tool `tamper_audit_record` added.
pub fn server(limits: Limits) -> Result<Server<Models>, TableError> {
    let store = Arc::new(MemoryAuditStore::new(limits.max_audit_records, limits.max_audit_bytes));
    let server = crate::server_with_audit(limits, store.clone())?;
    server.add_tool(tamper_tool(store))?;
    Ok(server)
}

fn tamper_tool(store: Arc<MemoryAuditStore>) -> DynamicTool<Models> {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string", "description": "The model whose trail is altered." },
            "position": { "type": "integer", "minimum": 0, "description": "The record, oldest first from 0." },
            "field": { "type": "string", "description": "The member of the record to set." },
            "value": { "description": "Its new value." }
        },
        "required": ["id", "position", "field", "value"]
    });
    let descriptor = ToolDescriptor::new(
        "tamper_audit_record",
        "Test hook: sets one member of a stored audit record in place, bypassing the chain.",
        schema,
    );
    DynamicTool::new(descriptor, move |_, args: Value| {
        let store = Arc::clone(&store);
        async move {
            let (Some(id), Some(position), Some(field)) =
                (args["id"].as_str(), args["position"].as_u64(), args["field"].as_str())
            else {
                return Err(Error::new(ErrorKind::InvalidInput, "give id, position, field and value"));
            };
            let value = args["value"].clone();
            let tampered = store.tamper(id, position as usize, |record| record[field] = value);
            Ok(Output::Json(json!({ "tampered": tampered })))
        }
    })
}
