//! Why a table of tools could not be built or changed.

use std::fmt;

/// Why a table could not be built or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// A name outside `[A-Za-z0-9_.-]{1,128}`.
    InvalidName {
        /// The name.
        name: String,
    },
    /// Two tools with one name.
    DuplicateName {
        /// The name.
        name: String,
    },
    /// An inputSchema whose root is not `type: object`.
    InputNotObject {
        /// The tool.
        tool: String,
    },
    /// A schema that does not compile.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What the compiler said.
        message: String,
    },
    /// A route parameter or body field that is no property of the inputSchema.
    UnknownRouteField {
        /// The tool.
        tool: String,
        /// The field the route names.
        field: String,
        /// The inputSchema's properties.
        properties: Vec<String>,
    },
    /// Two resources at one URI, two resource templates alike, or two prompts with one name
    /// (a mounted server's beside this one's, say).
    Duplicate {
        /// What there are two of: `resource`, `resource template` or `prompt`.
        kind: &'static str,
        /// The URI or name they share.
        name: String,
    },
    /// Two tools on one REST method and path.
    DuplicateRoute {
        /// The method and path.
        route: String,
        /// The tool that has it.
        first: String,
        /// The tool that asked for it too.
        second: String,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::InvalidName { name } => {
                write!(f, "tool name {name:?} is not 1 to 128 characters of [A-Za-z0-9_.-]")
            }
            TableError::DuplicateName { name } => write!(f, "two tools are named {name:?}"),
            TableError::Duplicate { kind, name } => write!(f, "two of the server's {kind}s are {name:?}"),
            TableError::InputNotObject { tool } => {
                write!(f, "tool {tool:?}: its inputSchema must have `type: object` at the root")
            }
            TableError::InvalidSchema { tool, message } => write!(f, "tool {tool:?}: invalid schema: {message}"),
            TableError::UnknownRouteField { tool, field, properties } => write!(
                f,
                "tool {tool:?}: the route names `{field}`, but the inputSchema has no such property (it has: {})",
                properties.join(", ")
            ),
            TableError::DuplicateRoute { route, first, second } => {
                write!(f, "tools {first:?} and {second:?} are both served at {route}: give each its own route")
            }
        }
    }
}

impl std::error::Error for TableError {}
