//! A listing table over a repairing format, as a table of its own type.
//!
//! DataFusion's plan serialisation (datafusion-proto, which Ballista uses
//! to send a query from its client to the scheduler) writes a
//! `ListingTable` by naming its format, and knows only DataFusion's own:
//! a `ListingTable` over a [`RepairedFormat`](super::RepairedFormat)
//! cannot leave the process. Any other table is handed to the session's
//! extension codec, so a repairing listing table is wrapped in a type of
//! its own, which behaves as the listing table in every way and which
//! `crate::codec` can write and read.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{ScanArgs, ScanResult};
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{ListingTable, ListingTableConfig};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    CreateExternalTable, Expr, LogicalPlan, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_common::{plan_err, Result};

use super::factory::unrepaired_format;

/// A `ListingTable` whose format repairs its files' bytes (a
/// [`RepairedCsvFormat`](crate::RepairedCsvFormat),
/// [`RepairedJsonFormat`](crate::RepairedJsonFormat) or, with feature
/// `parquet`, a `RepairedParquetFormat`): the same table, of a type that a
/// plan sent to a Ballista cluster can carry (with feature `proto`'s
/// `RepairedFormatsLogicalCodec`). `CREATE EXTERNAL TABLE` with the `utf8guard.repair`
/// option makes one once [`register_file_formats`](crate::register_file_formats)
/// has run, and so do [`register_csv_repaired`](crate::register_csv_repaired)
/// and [`register_ndjson_repaired`](crate::register_ndjson_repaired).
#[derive(Debug, Clone)]
pub struct RepairedListingTable {
    table: ListingTable,
}

impl RepairedListingTable {
    /// Wraps `table`; an error if its format is not a repairing one.
    pub fn try_new(table: ListingTable) -> Result<RepairedListingTable> {
        match unrepaired_format(table.options().format.as_ref()) {
            Some(_) => Ok(RepairedListingTable { table }),
            None => plan_err!(
                "a repaired listing table needs a repairing format, not {:?}",
                table.options().format
            ),
        }
    }

    /// The listing table.
    pub fn listing_table(&self) -> &ListingTable {
        &self.table
    }
}

/// `table` with another format and the same paths, options and schema
/// (the files' schema: the table's without its partition columns).
// Used by the codecs alone.
#[cfg_attr(not(feature = "proto"), allow(dead_code))]
pub(crate) fn with_format(
    table: &ListingTable,
    format: Arc<dyn FileFormat>,
) -> Result<ListingTable> {
    let mut options = table.options().clone();
    let schema = table.schema();
    let partitions = &options.table_partition_cols;
    let fields = schema
        .fields()
        .iter()
        .filter(|field| !partitions.iter().any(|(name, _)| name == field.name()))
        .cloned()
        .collect::<Vec<_>>();
    let file_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    options.format = format;
    let config = ListingTableConfig::new_with_multi_paths(table.table_paths().clone())
        .with_listing_options(options)
        .with_schema(file_schema);
    Ok(ListingTable::try_new(config)?
        .with_definition(table.get_table_definition().map(str::to_string)))
}

#[async_trait]
impl TableProvider for RepairedListingTable {
    fn schema(&self) -> SchemaRef {
        self.table.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.table.constraints()
    }

    fn table_type(&self) -> TableType {
        self.table.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.table.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.table.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.table.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.table.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.table.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.table.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.table.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.table.insert_into(state, input, insert_op).await
    }
}

/// A table factory of the session's (DataFusion's listing tables, for
/// `CREATE EXTERNAL TABLE ... STORED AS CSV`, say) whose listing tables
/// over a repairing format come out as [`RepairedListingTable`]s; every
/// other table is the wrapped factory's, unchanged.
pub(crate) struct RepairingTableFactory {
    pub(crate) inner: Arc<dyn TableProviderFactory>,
}

impl fmt::Debug for RepairingTableFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairingTableFactory")
            .field("inner", &self.inner)
            .finish()
    }
}

#[async_trait]
impl TableProviderFactory for RepairingTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let table = self.inner.create(state, cmd).await?;
        match table.downcast_ref::<ListingTable>() {
            Some(listing) if unrepaired_format(listing.options().format.as_ref()).is_some() => {
                Ok(Arc::new(RepairedListingTable::try_new(listing.clone())?))
            }
            _ => Ok(table),
        }
    }
}
