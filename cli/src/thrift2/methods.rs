//! `THBaseService`'s methods as HBase 2.6's Thrift2 IDL declares them, in the Thrift1
//! gateway's table form (see [`crate::thrift::methods`]): one entry per method with its
//! result type, its argument ids and types, its declared exceptions and its handler. The
//! table is handed to `define_args!` here (the args structs) and to `define_dispatch!` in
//! `data.rs` (the dispatcher of [`super::service::Thrift2Service`]).
//!
//! Thrift2 declares `1: TIOError io` and, on the scanner calls, `2: TIllegalArgument ia`: the
//! same field ids as Thrift1's IOError and IllegalArgument, so the result structs are built
//! alike. Arguments the gateway ignores (attributes, the slow-log filters, access control
//! entities) are not listed.
use super::types::{
    TAppend, TColumnFamilyDescriptor, TDelete, TGet, TIncrement, TNamespaceDescriptor, TPut,
    TRowMutations, TScan, TTableDescriptor, TTableName,
};
use crate::thrift::methods::define_args;

/// The table: every method of HBase 2.6's `THBaseService` (hbase.thrift), including the 2.4+
/// slow-log and access-control methods. Each entry reads
/// `result method(id: type name, …) throws (…) => ArgsStruct, handler;`.
macro_rules! thbase_methods {
    ($then:ident $($pre:tt)*) => {
        $then! {
            $($pre)*
            // ---- reads (data.rs) ----
            bool exists(1: Text table, 2: TGet tget)
                throws (IOError) => ExistsArgs, exists;
            list<bool> existsAll(1: Text table, 2: list<TGet> tgets)
                throws (IOError) => ExistsAllArgs, exists_all;
            TResult get(1: Text table, 2: TGet tget)
                throws (IOError) => GetArgs, get;
            list<TResult> getMultiple(1: Text table, 2: list<TGet> tgets)
                throws (IOError) => GetMultipleArgs, get_multiple;

            // ---- writes (data.rs) ----
            void put(1: Text table, 2: TPut tput)
                throws (IOError) => PutArgs, put;
            bool checkAndPut(1: Text table, 2: Text row, 3: Text family, 4: Text qualifier,
                5: Text value, 6: TPut tput)
                throws (IOError) => CheckAndPutArgs, check_and_put;
            void putMultiple(1: Text table, 2: list<TPut> tputs)
                throws (IOError) => PutMultipleArgs, put_multiple;
            void deleteSingle(1: Text table, 2: TDelete tdelete)
                throws (IOError) => DeleteSingleArgs, delete_single;
            list<TDelete> deleteMultiple(1: Text table, 2: list<TDelete> tdeletes)
                throws (IOError) => DeleteMultipleArgs, delete_multiple;
            bool checkAndDelete(1: Text table, 2: Text row, 3: Text family, 4: Text qualifier,
                5: Text value, 6: TDelete tdelete)
                throws (IOError) => CheckAndDeleteArgs, check_and_delete;
            TResult increment(1: Text table, 2: TIncrement tincrement)
                throws (IOError) => IncrementArgs, increment;
            TResult append(1: Text table, 2: TAppend tappend)
                throws (IOError) => AppendArgs, append;
            void mutateRow(1: Text table, 2: TRowMutations trow_mutations)
                throws (IOError) => MutateRowArgs, mutate_row;
            bool checkAndMutate(1: Text table, 2: Text row, 3: Text family, 4: Text qualifier,
                5: i32 compare_op, 6: Text value, 7: TRowMutations row_mutations)
                throws (IOError) => CheckAndMutateArgs, check_and_mutate;

            // ---- scanners (data.rs) ----
            i32 openScanner(1: Text table, 2: TScan tscan)
                throws (IOError) => OpenScannerArgs, open_scanner;
            list<TResult> getScannerRows(1: i32 scanner_id, 2: i32 num_rows)
                throws (IOError, IllegalArgument) => GetScannerRowsArgs, get_scanner_rows;
            void closeScanner(1: i32 scanner_id)
                throws (IOError, IllegalArgument) => CloseScannerArgs, close_scanner;
            list<TResult> getScannerResults(1: Text table, 2: TScan tscan, 3: i32 num_rows)
                throws (IOError) => GetScannerResultsArgs, get_scanner_results;

            // ---- regions (admin.rs) ----
            THRegionLocation getRegionLocation(1: Text table, 2: Text row, 3: bool reload)
                throws (IOError) => GetRegionLocationArgs, get_region_location;
            list<THRegionLocation> getAllRegionLocations(1: Text table)
                throws (IOError) => GetAllRegionLocationsArgs, get_all_region_locations;

            // ---- tables (admin.rs) ----
            TTableDescriptor getTableDescriptor(1: TTableName table)
                throws (IOError) => GetTableDescriptorArgs, get_table_descriptor;
            list<TTableDescriptor> getTableDescriptors(1: list<TTableName> tables)
                throws (IOError) => GetTableDescriptorsArgs, get_table_descriptors;
            bool tableExists(1: TTableName table_name)
                throws (IOError) => TableExistsArgs, table_exists;
            list<TTableDescriptor> getTableDescriptorsByPattern(1: Text regex,
                2: bool include_sys_tables)
                throws (IOError)
                => GetTableDescriptorsByPatternArgs, get_table_descriptors_by_pattern;
            list<TTableDescriptor> getTableDescriptorsByNamespace(1: Text name)
                throws (IOError)
                => GetTableDescriptorsByNamespaceArgs, get_table_descriptors_by_namespace;
            list<TTableName> getTableNamesByPattern(1: Text regex, 2: bool include_sys_tables)
                throws (IOError) => GetTableNamesByPatternArgs, get_table_names_by_pattern;
            list<TTableName> getTableNamesByNamespace(1: Text name)
                throws (IOError) => GetTableNamesByNamespaceArgs, get_table_names_by_namespace;
            void createTable(1: TTableDescriptor desc, 2: list<Text> split_keys)
                throws (IOError) => CreateTableArgs, create_table;
            void deleteTable(1: TTableName table_name)
                throws (IOError) => DeleteTableArgs, delete_table;
            void truncateTable(1: TTableName table_name, 2: bool preserve_splits)
                throws (IOError) => TruncateTableArgs, truncate_table;
            void enableTable(1: TTableName table_name)
                throws (IOError) => EnableTableArgs, enable_table;
            void disableTable(1: TTableName table_name)
                throws (IOError) => DisableTableArgs, disable_table;
            bool isTableEnabled(1: TTableName table_name)
                throws (IOError) => IsTableEnabledArgs, is_table_enabled;
            bool isTableDisabled(1: TTableName table_name)
                throws (IOError) => IsTableDisabledArgs, is_table_disabled;
            bool isTableAvailable(1: TTableName table_name)
                throws (IOError) => IsTableAvailableArgs, is_table_available;
            bool isTableAvailableWithSplit(1: TTableName table_name, 2: list<Text> split_keys)
                throws (IOError) => IsTableAvailableWithSplitArgs, is_table_available_with_split;
            void addColumnFamily(1: TTableName table_name, 2: TColumnFamilyDescriptor column)
                throws (IOError) => AddColumnFamilyArgs, add_column_family;
            void deleteColumnFamily(1: TTableName table_name, 2: Text column)
                throws (IOError) => DeleteColumnFamilyArgs, delete_column_family;
            void modifyColumnFamily(1: TTableName table_name, 2: TColumnFamilyDescriptor column)
                throws (IOError) => ModifyColumnFamilyArgs, modify_column_family;
            void modifyTable(1: TTableDescriptor desc)
                throws (IOError) => ModifyTableArgs, modify_table;

            // ---- namespaces (admin.rs) ----
            void createNamespace(1: TNamespaceDescriptor namespace_desc)
                throws (IOError) => CreateNamespaceArgs, create_namespace;
            void modifyNamespace(1: TNamespaceDescriptor namespace_desc)
                throws (IOError) => ModifyNamespaceArgs, modify_namespace;
            void deleteNamespace(1: Text name)
                throws (IOError) => DeleteNamespaceArgs, delete_namespace;
            TNamespaceDescriptor getNamespaceDescriptor(1: Text name)
                throws (IOError) => GetNamespaceDescriptorArgs, get_namespace_descriptor;
            list<TNamespaceDescriptor> listNamespaceDescriptors()
                throws (IOError) => ListNamespaceDescriptorsArgs, list_namespace_descriptors;
            list<Text> listNamespaces()
                throws (IOError) => ListNamespacesArgs, list_namespaces;

            // ---- server (admin.rs) ----
            i32 getThriftServerType()
                => GetThriftServerTypeArgs, get_thrift_server_type;
            list<TOnlineLogRecord> getSlowLogResponses()
                throws (IOError) => GetSlowLogResponsesArgs, get_slow_log_responses;
            list<bool> clearSlowLogResponses()
                throws (IOError) => ClearSlowLogResponsesArgs, clear_slow_log_responses;
            bool grant()
                throws (IOError) => GrantArgs, grant;
            bool revoke()
                throws (IOError) => RevokeArgs, revoke;
            map<Text, Text> getUserPermission()
                throws (IOError) => GetUserPermissionArgs, get_user_permission;
        }
    };
}
pub(crate) use thbase_methods;

thbase_methods!(define_args);
