//! A Parquet file's metadata with its top-level string columns shown as
//! plain bytes, so that Arrow's reader reads them as `Binary` without
//! checking that they are UTF-8.
//!
//! The reader checks a `BYTE_ARRAY` column whenever its Arrow type is a
//! string type, and the type comes from the annotation (`String` or `Json`
//! logical type, `UTF8` or `JSON` converted type) or from the embedded
//! Arrow schema; a type hint can turn `Binary` into `Utf8` but not back.
//! So the annotation is taken off the file schema, and the embedded Arrow
//! schema is skipped by the caller. The reader takes the types of its
//! columns from the file schema alone (it builds each column's descriptor
//! from it), so the row groups' column metadata is kept as it is.

use std::sync::Arc;

use datafusion::parquet::basic::{ConvertedType, LogicalType, Type as PhysicalType};
use datafusion::parquet::errors::Result;
use datafusion::parquet::file::metadata::{FileMetaData, ParquetMetaData};
use datafusion::parquet::schema::types::{SchemaDescriptor, Type, TypePtr};

/// `metadata` with the string annotation taken off each top-level
/// `BYTE_ARRAY` column. Strings nested in lists, maps or structs keep it.
pub(crate) fn strings_as_bytes(metadata: &ParquetMetaData) -> Result<ParquetMetaData> {
    let file = metadata.file_metadata();
    let root = file.schema();
    let fields = root
        .get_fields()
        .iter()
        .map(|field| as_bytes(field).map(|bytes| bytes.unwrap_or_else(|| Arc::clone(field))))
        .collect::<Result<Vec<TypePtr>>>()?;
    let root = Type::group_type_builder(root.name())
        .with_fields(fields)
        .build()?;
    let file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_owned),
        file.key_value_metadata().cloned(),
        Arc::new(SchemaDescriptor::new(Arc::new(root))),
        file.column_orders().cloned(),
    );
    Ok(ParquetMetaData::new(file, metadata.row_groups().to_vec()))
}

/// `field` without its string annotation, when it is a top-level string
/// column; `None` for any other field.
fn as_bytes(field: &Type) -> Result<Option<TypePtr>> {
    if !field.is_primitive() || field.get_physical_type() != PhysicalType::BYTE_ARRAY {
        return Ok(None);
    }
    let info = field.get_basic_info();
    let string = matches!(
        info.logical_type_ref(),
        Some(LogicalType::String | LogicalType::Json)
    ) || (info.logical_type_ref().is_none()
        && matches!(
            info.converted_type(),
            ConvertedType::UTF8 | ConvertedType::JSON
        ));
    if !string {
        return Ok(None);
    }
    let id = info.has_id().then(|| info.id());
    let bytes = Type::primitive_type_builder(field.name(), PhysicalType::BYTE_ARRAY)
        .with_repetition(info.repetition())
        .with_id(id)
        .build()?;
    Ok(Some(Arc::new(bytes)))
}
