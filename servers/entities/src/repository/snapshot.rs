//! One complete read of the repository. Each entity carries its own outcome (schema, files,
//! records), so a broken file spoils only the entities that depend on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json_path::JsonPath;

use super::definition::Definition;
use super::error::LoadError;
use super::includes::{self, Matched};
use super::inheritance::{self, Parents};
use super::normalize::normalize;
use super::records::{self, RecordFile, Records};
use super::roots::Roots;
use super::schema::Schema;
use super::source;
use super::validation::RecordValidator;

/// The folder of definitions under the workspace root.
const DEFINITIONS_DIR: &str = "entities";

#[derive(Debug)]
pub struct Snapshot {
    pub roots: Roots,
    pub entities: BTreeMap<String, Entity>,
    /// Every directory read, so that a change in one is noticed.
    pub dirs: BTreeSet<PathBuf>,
}

#[derive(Debug)]
pub struct Entity {
    pub schema: Result<Arc<Schema>, LoadError>,
    /// Workspace-relative paths of the files its includes match, sorted.
    pub files: Result<Vec<String>, LoadError>,
    pub records: Result<Records, LoadError>,
}

impl Snapshot {
    /// Reads the repository at the canonical `root`. An error here concerns the whole
    /// repository (its configuration or its definitions folder).
    pub fn load(root: &Path) -> Result<Snapshot, LoadError> {
        let roots = Roots::load(root).map_err(|reason| LoadError::new("", reason))?;
        let definitions_dir = root.join(DEFINITIONS_DIR);
        let mut dirs = BTreeSet::from([root.to_owned(), definitions_dir.clone()]);
        let definitions = read_definitions(&roots, &definitions_dir)?;
        let parents: Parents = definitions
            .iter()
            .filter_map(|(name, def)| Some((name.clone(), def.as_ref().ok()?.extends.clone())))
            .collect();
        let entities = definitions
            .iter()
            .map(|(name, def)| (name.clone(), load_entity(&roots, name, def, &definitions, &parents, &mut dirs)))
            .collect();
        Ok(Snapshot { roots, entities, dirs })
    }
}

type Definitions = BTreeMap<String, Result<Definition, LoadError>>;

fn definition_path(name: &str) -> String {
    format!("{DEFINITIONS_DIR}/{name}.yaml")
}

fn read_definitions(roots: &Roots, dir: &Path) -> Result<Definitions, LoadError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| LoadError::new(DEFINITIONS_DIR, format!("the definitions folder cannot be read: {e}")))?;
    let mut definitions = BTreeMap::new();
    for entry in entries {
        let entry = entry.map_err(|e| LoadError::new(DEFINITIONS_DIR, e.to_string()))?;
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str().and_then(|f| f.strip_suffix(".yaml")) else { continue };
        let shown = definition_path(name);
        let definition = roots
            .confine(&entry.path())
            .and_then(|real| source::read_text(&real))
            .and_then(|text| yaml_serde::from_str::<Definition>(&text).map_err(|e| e.to_string()))
            .map_err(|reason| LoadError::new(&shown, reason));
        definitions.insert(name.to_owned(), definition);
    }
    Ok(definitions)
}

fn load_entity(
    roots: &Roots,
    name: &str,
    definition: &Result<Definition, LoadError>,
    all: &Definitions,
    parents: &Parents,
    dirs: &mut BTreeSet<PathBuf>,
) -> Entity {
    let shown = definition_path(name);
    let schema = definition.as_ref().map_err(Clone::clone).and_then(|def| {
        schema(roots, name, def, all, parents).map(Arc::new).map_err(|reason| LoadError::new(&shown, reason))
    });
    let matched = schema.as_ref().map_err(Clone::clone).and_then(|schema| match_files(roots, &shown, schema, dirs));
    let files = matched.as_ref().map_err(Clone::clone).map(|m| {
        let mut files: Vec<String> = m.iter().map(|(m, _)| m.relative.clone()).collect();
        files.sort();
        files
    });
    let records = schema.as_ref().map_err(Clone::clone).and_then(|schema| {
        let validator = validator(roots, &shown, schema)?;
        let matched = matched?;
        let record_files: Vec<RecordFile> = matched
            .iter()
            .map(|(m, selector)| RecordFile { relative: &m.relative, real: &m.real, selector: *selector })
            .collect();
        records::load(schema, &validator, &shown, &record_files)
    });
    Entity { schema, files, records }
}

fn schema(roots: &Roots, name: &str, def: &Definition, all: &Definitions, parents: &Parents) -> Result<Schema, String> {
    // Every ancestor is in `parents`, which holds only the definitions that could be read.
    let ancestors = inheritance::ancestors(parents, name)?;
    let inherited = ancestors.iter().filter_map(|ancestor| all.get(ancestor)?.as_ref().ok());
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
    dirs: &mut BTreeSet<PathBuf>,
) -> Result<Vec<(Matched, Option<&'s JsonPath>)>, LoadError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for include in &schema.include {
        for m in includes::expand(roots, shown, &include.path, dirs)? {
            if seen.insert(m.relative.clone()) {
                out.push((m, include.query.as_ref()));
            }
        }
    }
    Ok(out)
}

fn validator(roots: &Roots, shown: &str, schema: &Schema) -> Result<RecordValidator, LoadError> {
    let custom = if schema.json_schema.is_empty() {
        None
    } else {
        let path = &schema.json_schema;
        let fail = |reason: String| LoadError::new(path, reason);
        roots.check_relative(path).map_err(|reason| LoadError::new(shown, format!("`JSONSchema`: {reason}")))?;
        let real = roots.confine(&roots.absolute(path)).map_err(fail)?;
        Some(source::read_document(&real, path).map_err(fail)?)
    };
    RecordValidator::new(schema, custom.as_ref()).map_err(|reason| LoadError::new(shown, reason))
}
