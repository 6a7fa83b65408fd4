//! One complete read of the repository. Each entity carries its own outcome (schema, files,
//! records), so a broken file spoils only the entities that depend on it. An entity whose
//! schema and files are those of the previous read keeps its records from it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use serde_json_path::JsonPath;

use super::changes::Writing;
use super::definition::Definition;
use super::error::{Diagnostic, LoadError};
use super::includes::{self, Matched};
use super::inheritance::{self, Parents};
use super::normalize::normalize;
use super::reader::{Caches, Reader};
use super::records::{self, RecordFile, Records};
use super::roots::Roots;
use super::schema::Schema;
use super::source::Limits;
use super::validation::RecordValidator;

/// The folder of definitions under the workspace root.
const DEFINITIONS_DIR: &str = "entities";

#[derive(Debug)]
pub struct Snapshot {
    pub roots: Roots,
    pub entities: BTreeMap<String, Entity>,
    /// Every directory read, so that a change in one is noticed.
    pub dirs: BTreeSet<PathBuf>,
    /// Files skipped, or served in an earlier version, in this read.
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug)]
pub struct Entity {
    pub schema: Result<Arc<Schema>, LoadError>,
    /// Workspace-relative paths of the files its includes match, sorted.
    pub files: Result<Vec<String>, LoadError>,
    pub records: Result<Arc<Records>, LoadError>,
    /// What the records were made from, when they could be: the same inputs give the same records.
    inputs: Option<Inputs>,
}

/// The schema, the `JSONSchema` document and the record documents the records were made from.
#[derive(Debug)]
struct Inputs {
    schema: Arc<Schema>,
    custom: Option<Arc<Value>>,
    documents: Vec<(String, Arc<Value>)>,
}

impl Inputs {
    fn same_as(&self, other: &Inputs) -> bool {
        let same_doc = |a: &Arc<Value>, b: &Arc<Value>| Arc::ptr_eq(a, b);
        self.schema == other.schema
            && match (&self.custom, &other.custom) {
                (Some(a), Some(b)) => same_doc(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
            && self.documents.len() == other.documents.len()
            && self.documents.iter().zip(&other.documents).all(|((p, a), (q, b))| p == q && same_doc(a, b))
    }
}

impl Snapshot {
    /// Reads the repository at the canonical `root`, reusing what `previous` made from files
    /// that did not change. An error here concerns the whole repository (its configuration or
    /// its definitions folder).
    pub fn load(
        root: &Path,
        limits: &Limits,
        caches: &mut Caches,
        writing: &Writing,
        previous: Option<&Snapshot>,
    ) -> Result<Snapshot, LoadError> {
        let mut reader = Reader::new(limits, caches, writing);
        let loaded = load_entities(root, &mut reader, previous);
        let (dirs, diagnostics) = reader.finish();
        let (roots, entities) = loaded?;
        Ok(Snapshot { roots, entities, dirs, diagnostics })
    }
}

fn load_entities(
    root: &Path,
    reader: &mut Reader,
    previous: Option<&Snapshot>,
) -> Result<(Roots, BTreeMap<String, Entity>), LoadError> {
    let roots = Roots::load(root, reader).map_err(|reason| LoadError::new("", reason))?;
    let definitions_dir = root.join(DEFINITIONS_DIR);
    reader.dirs.extend([root.to_owned(), definitions_dir.clone()]);
    let definitions = read_definitions(&roots, &definitions_dir, reader)?;
    let parents: Parents =
        definitions.iter().filter_map(|(name, def)| Some((name.clone(), def.as_ref().ok()?.extends.clone()))).collect();
    let entities = definitions
        .iter()
        .map(|(name, def)| {
            let before = previous.and_then(|p| p.entities.get(name));
            let entity = load_entity(&roots, name, def, &definitions, &parents, reader, before);
            (name.clone(), entity)
        })
        .collect();
    Ok((roots, entities))
}

type Definitions = BTreeMap<String, Result<Arc<Definition>, LoadError>>;

fn definition_path(name: &str) -> String {
    format!("{DEFINITIONS_DIR}/{name}.yaml")
}

fn read_definitions(roots: &Roots, dir: &Path, reader: &mut Reader) -> Result<Definitions, LoadError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| LoadError::new(DEFINITIONS_DIR, format!("the definitions folder cannot be read: {e}")))?;
    let mut definitions = BTreeMap::new();
    for entry in entries {
        let entry = entry.map_err(|e| LoadError::new(DEFINITIONS_DIR, e.to_string()))?;
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str().and_then(|f| f.strip_suffix(".yaml")) else { continue };
        let shown = definition_path(name);
        let real = match roots.confine(&entry.path()) {
            Ok(real) => real,
            Err(reason) => {
                definitions.insert(name.to_owned(), Err(LoadError::new(&shown, reason)));
                continue;
            }
        };
        // What is no regular file is no definition: it is skipped, never opened.
        match std::fs::metadata(&real) {
            Ok(metadata) if !metadata.is_file() => {
                reader.skip(&shown, super::source::not_regular(metadata.file_type()));
                continue;
            }
            _ => {}
        }
        let definition = reader.definition(&real, &shown).map_err(|reason| LoadError::new(&shown, reason));
        definitions.insert(name.to_owned(), definition);
    }
    Ok(definitions)
}

fn load_entity(
    roots: &Roots,
    name: &str,
    definition: &Result<Arc<Definition>, LoadError>,
    all: &Definitions,
    parents: &Parents,
    reader: &mut Reader,
    before: Option<&Entity>,
) -> Entity {
    let shown = definition_path(name);
    let schema = definition.as_ref().map_err(Clone::clone).and_then(|def| {
        schema(roots, name, def, all, parents).map(Arc::new).map_err(|reason| LoadError::new(&shown, reason))
    });
    let matched = schema.as_ref().map_err(Clone::clone).and_then(|schema| match_files(roots, &shown, schema, reader));
    let files = matched.as_ref().map_err(Clone::clone).map(|m| {
        let mut files: Vec<String> = m.iter().map(|(m, _)| m.relative.clone()).collect();
        files.sort();
        files
    });
    let inputs = schema.as_ref().map_err(Clone::clone).and_then(|schema| {
        let custom = custom_schema(roots, &shown, schema, reader)?;
        let documents = matched
            .as_ref()
            .map_err(Clone::clone)?
            .iter()
            .map(|(m, _)| {
                let doc =
                    reader.document(&m.real, &m.relative).map_err(|reason| LoadError::new(&m.relative, reason))?;
                Ok((m.relative.clone(), doc))
            })
            .collect::<Result<Vec<_>, LoadError>>()?;
        Ok(Inputs { schema: Arc::clone(schema), custom, documents })
    });
    let inputs = match inputs {
        Ok(inputs) => inputs,
        Err(e) => return Entity { schema, files, records: Err(e), inputs: None },
    };
    if let Some(before) = before
        && let Some(earlier) = &before.inputs
        && earlier.same_as(&inputs)
    {
        return Entity { schema, files, records: before.records.clone(), inputs: Some(inputs) };
    }
    let selectors = matched.iter().flatten().map(|(_, selector)| *selector);
    let records = make_records(&shown, &inputs, selectors).map(Arc::new);
    Entity { schema, files, records, inputs: Some(inputs) }
}

fn make_records<'s>(
    shown: &str,
    inputs: &Inputs,
    selectors: impl Iterator<Item = Option<&'s JsonPath>>,
) -> Result<Records, LoadError> {
    let validator = RecordValidator::new(&inputs.schema, inputs.custom.as_deref())
        .map_err(|reason| LoadError::new(shown, reason))?;
    let record_files: Vec<RecordFile> = inputs
        .documents
        .iter()
        .zip(selectors)
        .map(|((relative, doc), selector)| RecordFile { relative, doc, selector })
        .collect();
    records::load(&inputs.schema, &validator, shown, &record_files)
}

fn schema(roots: &Roots, name: &str, def: &Definition, all: &Definitions, parents: &Parents) -> Result<Schema, String> {
    // Every ancestor is in `parents`, which holds only the definitions that could be read.
    let ancestors = inheritance::ancestors(parents, name)?;
    let inherited = ancestors.iter().filter_map(|ancestor| all.get(ancestor)?.as_deref().ok());
    let chain: Vec<&Definition> = std::iter::once(def).chain(inherited).collect();
    let mut schema = normalize(name, &chain)?;
    for field in schema.fields.values() {
        for target in field.reference_types.iter().flatten() {
            if !all.contains_key(target) {
                return Err(format!("field `{}` refers to the unknown entity {target:?}", field.name));
            }
        }
    }
    schema.source = roots.absolute(&definition_path(name)).display().to_string();
    let descendants = inheritance::descendants(parents, name);
    schema.ancestors = (!ancestors.is_empty()).then_some(ancestors);
    schema.descendants = (!descendants.is_empty()).then_some(descendants);
    Ok(schema)
}

/// The files every include matches, each once (with the parsed selector of the first include
/// that matched it), in include order.
fn match_files<'s>(
    roots: &Roots,
    shown: &str,
    schema: &'s Schema,
    reader: &mut Reader,
) -> Result<Vec<(Matched, Option<&'s JsonPath>)>, LoadError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for include in &schema.include {
        for m in includes::expand(roots, shown, &include.path, reader)? {
            if seen.insert(m.relative.clone()) {
                out.push((m, include.query.as_ref()));
            }
        }
    }
    Ok(out)
}

/// The definition's `JSONSchema` document, when it names one.
fn custom_schema(
    roots: &Roots,
    shown: &str,
    schema: &Schema,
    reader: &mut Reader,
) -> Result<Option<Arc<Value>>, LoadError> {
    if schema.json_schema.is_empty() {
        return Ok(None);
    }
    let path = &schema.json_schema;
    let fail = |reason: String| LoadError::new(path, reason);
    roots.check_relative(path).map_err(|reason| LoadError::new(shown, format!("`JSONSchema`: {reason}")))?;
    let real = roots.confine(&roots.absolute(path)).map_err(fail)?;
    Ok(Some(reader.document(&real, path).map_err(fail)?))
}
