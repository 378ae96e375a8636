//! The `Hbase` service's methods as its IDL declares them: one table entry per method, with its
//! result type, its argument ids and types, its declared exceptions and its handler.
//!
//! The table (`hbase_methods!`) is written once and handed to a macro: here to `define_args!`,
//! which writes each method's args struct and its [`Method`] impl (the `decode` that names the
//! IDL field ids); in `dispatch.rs` to the dispatcher, which maps the method name to the typed
//! handler and encodes its result struct. Adding a method is one table entry and its handler.
//!
//! Decoding is lenient, as happybase needs (thrift-gateway.md §3.6): an argument that is absent
//! or of another wire type is `None`, and what a handler does about it (a default, or the
//! error it names) is the handler's business. `attributes` maps are not listed: the gateway
//! ignores them, like every argument the table does not name.
use super::call::Fail;
use super::protocol::Value;
use super::types::{
    BatchMutation, ColumnDescriptor, Fields, FromFields, Mutation, TAppend, TIncrement, TScan,
    exception,
};

/// The exceptions of `Hbase.thrift`, numbered by their field id in a result struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exception {
    /// `1: IOError io`, declared by every method that can fail.
    IOError = 1,
    /// `2: IllegalArgument ia`.
    IllegalArgument = 2,
    /// `3: AlreadyExists exist` (only `createTable`).
    AlreadyExists = 3,
}

/// A method's success value: field 0 of its result struct (absent for `void`).
pub trait Success {
    /// The value of field 0, or `None` for `void`.
    fn into_field(self) -> Option<Value>;
}

impl Success for () {
    fn into_field(self) -> Option<Value> {
        None
    }
}

impl Success for bool {
    fn into_field(self) -> Option<Value> {
        Some(Value::Bool(self))
    }
}

impl Success for i32 {
    fn into_field(self) -> Option<Value> {
        Some(Value::I32(self))
    }
}

impl Success for i64 {
    fn into_field(self) -> Option<Value> {
        Some(Value::I64(self))
    }
}

/// Strings, lists, maps and structs, already encoded by the handler.
impl Success for Value {
    fn into_field(self) -> Option<Value> {
        Some(self)
    }
}

/// One method of the service, as its table entry declares it.
pub trait Method<'a>: Sized {
    /// The method's name on the wire.
    const NAME: &'static str;
    /// The exceptions the method declares.
    const THROWS: &'static [Exception];
    /// What the handler returns on success.
    type Success: Success;
    /// Decodes the argument struct.
    fn decode(f: Fields<'a>) -> Self;
}

/// The result struct of a call: field 0 on success, else the exception.
///
/// A failure whose exception the method does not declare goes back as `1: IOError`; the two
/// methods that declare none (`getThriftServerType`, `getClusterId`) cannot fail.
pub fn result_struct<T: Success>(r: Result<T, Fail>, throws: &[Exception]) -> Vec<(i16, Value)> {
    let (e, m) = match r {
        Ok(v) => return v.into_field().map(|v| vec![(0, v)]).unwrap_or_default(),
        Err(Fail::Exists(m)) if throws.contains(&Exception::AlreadyExists) => {
            (Exception::AlreadyExists, m)
        }
        Err(Fail::Illegal(m)) if throws.contains(&Exception::IllegalArgument) => {
            (Exception::IllegalArgument, m)
        }
        Err(Fail::Io(m) | Fail::Illegal(m) | Fail::Exists(m)) => (Exception::IOError, m),
    };
    vec![(e as i16, exception(&m))]
}

/// An argument type: how field `id` of an argument struct decodes (`None` when it is absent or
/// of another wire type).
pub trait Arg<'a>: Sized {
    /// Field `id` of `f`.
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self>;
}

impl<'a> Arg<'a> for &'a [u8] {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.bin(id)
    }
}

impl<'a> Arg<'a> for bool {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.bool(id)
    }
}

impl<'a> Arg<'a> for i32 {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.i32(id)
    }
}

impl<'a> Arg<'a> for i64 {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.i64(id)
    }
}

impl<'a> Arg<'a> for Vec<&'a [u8]> {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.bin_list(id)
    }
}

impl<'a, T: FromFields<'a>> Arg<'a> for T {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.strct(id).map(T::from_fields)
    }
}

impl<'a, T: FromFields<'a>> Arg<'a> for Vec<T> {
    fn arg(f: &Fields<'a>, id: i16) -> Option<Self> {
        f.struct_list(id)
            .map(|l| l.into_iter().map(T::from_fields).collect())
    }
}

/// The Rust type of an IDL argument type (borrowing from the request for `'a`).
macro_rules! arg_ty {
    (Text) => { &'a [u8] };
    (bool) => { bool };
    (i32) => { i32 };
    (i64) => { i64 };
    (list<$t:ident>) => { Vec<$crate::thrift::methods::arg_ty!($t)> };
    (ColumnDescriptor) => { ColumnDescriptor };
    ($t:ident) => { $t<'a> };
}
pub(crate) use arg_ty;

/// The Rust type of an IDL result type: strings, lists, maps and structs are encoded by the
/// handler as a [`Value`].
macro_rules! ret_ty {
    (void) => {
        ()
    };
    (bool) => {
        bool
    };
    (i32) => {
        i32
    };
    (i64) => {
        i64
    };
    ($($idl:tt)+) => {
        $crate::thrift::protocol::Value
    };
}
pub(crate) use ret_ty;

/// Writes each method's args struct and its [`Method`] impl (for either gateway's table).
macro_rules! define_args {
    ($(
        $ret:ident $(<$($ret_arg:ident),+>)?
            $wire:ident ( $($id:literal : $kind:ident $(<$elem:ident>)? $field:ident),* )
            $(throws ($($ex:ident),+))? => $args:ident, $handler:ident;
    )*) => {$(
        #[doc = concat!("The arguments of `", stringify!($wire), "`.")]
        #[derive(Debug)]
        pub struct $args<'a> {
            $(
                #[doc = concat!(
                    "`", stringify!($id), ": ", stringify!($kind $(<$elem>)?), " ",
                    stringify!($field), "`."
                )]
                pub $field: Option<$crate::thrift::methods::arg_ty!($kind $(<$elem>)?)>,
            )*
            request: std::marker::PhantomData<&'a [u8]>,
        }

        impl<'a> $crate::thrift::methods::Method<'a> for $args<'a> {
            const NAME: &'static str = stringify!($wire);
            const THROWS: &'static [$crate::thrift::methods::Exception] =
                &[$($($crate::thrift::methods::Exception::$ex),+)?];
            type Success = $crate::thrift::methods::ret_ty!($ret $(<$($ret_arg),+>)?);
            fn decode(_f: $crate::thrift::types::Fields<'a>) -> Self {
                $args {
                    $($field: $crate::thrift::methods::Arg::arg(&_f, $id),)*
                    request: std::marker::PhantomData,
                }
            }
        }
    )*};
}
pub(crate) use define_args;

/// The table: every method the gateway answers, as `Hbase.thrift` declares it (happybase's
/// 0.98-era copy, thrift-gateway.md §1.2–1.4, plus upstream's `getTableNamesWithIsTableEnabled`,
/// `getThriftServerType` and `getClusterId`). Each entry reads
/// `result method(id: type name, …) throws (…) => ArgsStruct, handler;`, where the handler is
/// a method of `Service` taking the args struct and the call's context.
macro_rules! hbase_methods {
    ($then:ident $($pre:tt)*) => {
        $then! {
            $($pre)*
            // ---- table admin (admin.rs) ----
            list<Text> getTableNames()
                throws (IOError) => GetTableNamesArgs, get_table_names;
            map<Text, bool> getTableNamesWithIsTableEnabled()
                throws (IOError)
                => GetTableNamesWithIsTableEnabledArgs, get_table_names_with_is_table_enabled;
            i32 getThriftServerType()
                => GetThriftServerTypeArgs, get_thrift_server_type;
            string getClusterId()
                => GetClusterIdArgs, get_cluster_id;
            void createTable(1: Text table_name, 2: list<ColumnDescriptor> column_families)
                throws (IOError, IllegalArgument, AlreadyExists) => CreateTableArgs, create_table;
            void deleteTable(1: Text table_name)
                throws (IOError) => DeleteTableArgs, delete_table;
            void enableTable(1: Text table_name)
                throws (IOError) => EnableTableArgs, enable_table;
            void disableTable(1: Text table_name)
                throws (IOError) => DisableTableArgs, disable_table;
            bool isTableEnabled(1: Text table_name)
                throws (IOError) => IsTableEnabledArgs, is_table_enabled;
            void compact(1: Text table_name_or_region_name)
                throws (IOError) => CompactArgs, compact;
            void majorCompact(1: Text table_name_or_region_name)
                throws (IOError) => MajorCompactArgs, major_compact;
            map<Text, ColumnDescriptor> getColumnDescriptors(1: Text table_name)
                throws (IOError) => GetColumnDescriptorsArgs, get_column_descriptors;
            list<TRegionInfo> getTableRegions(1: Text table_name)
                throws (IOError) => GetTableRegionsArgs, get_table_regions;
            TRegionInfo getRegionInfo(1: Text row)
                throws (IOError) => GetRegionInfoArgs, get_region_info;

            // ---- row reads (reads.rs) ----
            list<TCell> get(1: Text table_name, 2: Text row, 3: Text column)
                throws (IOError) => GetArgs, get;
            list<TCell> getVer(1: Text table_name, 2: Text row, 3: Text column, 4: i32 num_versions)
                throws (IOError) => GetVerArgs, get_ver;
            list<TCell> getVerTs(1: Text table_name, 2: Text row, 3: Text column, 4: i64 timestamp,
                5: i32 num_versions)
                throws (IOError) => GetVerTsArgs, get_ver_ts;
            list<TRowResult> getRow(1: Text table_name, 2: Text row)
                throws (IOError) => GetRowArgs, get_row;
            list<TRowResult> getRowWithColumns(1: Text table_name, 2: Text row,
                3: list<Text> columns)
                throws (IOError) => GetRowWithColumnsArgs, get_row_with_columns;
            list<TRowResult> getRowTs(1: Text table_name, 2: Text row, 3: i64 timestamp)
                throws (IOError) => GetRowTsArgs, get_row_ts;
            list<TRowResult> getRowWithColumnsTs(1: Text table_name, 2: Text row,
                3: list<Text> columns, 4: i64 timestamp)
                throws (IOError) => GetRowWithColumnsTsArgs, get_row_with_columns_ts;
            list<TRowResult> getRows(1: Text table_name, 2: list<Text> rows)
                throws (IOError) => GetRowsArgs, get_rows;
            list<TRowResult> getRowsWithColumns(1: Text table_name, 2: list<Text> rows,
                3: list<Text> columns)
                throws (IOError) => GetRowsWithColumnsArgs, get_rows_with_columns;
            list<TRowResult> getRowsTs(1: Text table_name, 2: list<Text> rows, 3: i64 timestamp)
                throws (IOError) => GetRowsTsArgs, get_rows_ts;
            list<TRowResult> getRowsWithColumnsTs(1: Text table_name, 2: list<Text> rows,
                3: list<Text> columns, 4: i64 timestamp)
                throws (IOError) => GetRowsWithColumnsTsArgs, get_rows_with_columns_ts;
            list<TCell> getRowOrBefore(1: Text table_name, 2: Text row, 3: Text family)
                throws (IOError) => GetRowOrBeforeArgs, get_row_or_before;

            // ---- mutations (writes.rs) ----
            void mutateRow(1: Text table_name, 2: Text row, 3: list<Mutation> mutations)
                throws (IOError, IllegalArgument) => MutateRowArgs, mutate_row;
            void mutateRowTs(1: Text table_name, 2: Text row, 3: list<Mutation> mutations,
                4: i64 timestamp)
                throws (IOError, IllegalArgument) => MutateRowTsArgs, mutate_row_ts;
            void mutateRows(1: Text table_name, 2: list<BatchMutation> row_batches)
                throws (IOError, IllegalArgument) => MutateRowsArgs, mutate_rows;
            void mutateRowsTs(1: Text table_name, 2: list<BatchMutation> row_batches,
                3: i64 timestamp)
                throws (IOError, IllegalArgument) => MutateRowsTsArgs, mutate_rows_ts;
            i64 atomicIncrement(1: Text table_name, 2: Text row, 3: Text column, 4: i64 value)
                throws (IOError, IllegalArgument) => AtomicIncrementArgs, atomic_increment;
            void increment(1: TIncrement increment)
                throws (IOError) => IncrementArgs, increment;
            void incrementRows(1: list<TIncrement> increments)
                throws (IOError) => IncrementRowsArgs, increment_rows;
            list<TCell> append(1: TAppend append)
                throws (IOError) => AppendArgs, append;
            bool checkAndPut(1: Text table_name, 2: Text row, 3: Text column, 5: Text value,
                6: Mutation mput)
                throws (IOError, IllegalArgument) => CheckAndPutArgs, check_and_put;
            void deleteAll(1: Text table_name, 2: Text row, 3: Text column)
                throws (IOError) => DeleteAllArgs, delete_all;
            void deleteAllTs(1: Text table_name, 2: Text row, 3: Text column, 4: i64 timestamp)
                throws (IOError) => DeleteAllTsArgs, delete_all_ts;
            void deleteAllRow(1: Text table_name, 2: Text row)
                throws (IOError) => DeleteAllRowArgs, delete_all_row;
            void deleteAllRowTs(1: Text table_name, 2: Text row, 3: i64 timestamp)
                throws (IOError) => DeleteAllRowTsArgs, delete_all_row_ts;

            // ---- scanners (scans.rs) ----
            i32 scannerOpenWithScan(1: Text table_name, 2: TScan scan)
                throws (IOError) => ScannerOpenWithScanArgs, scanner_open_with_scan;
            i32 scannerOpen(1: Text table_name, 2: Text start_row, 3: list<Text> columns)
                throws (IOError) => ScannerOpenArgs, scanner_open;
            i32 scannerOpenTs(1: Text table_name, 2: Text start_row, 3: list<Text> columns,
                4: i64 timestamp)
                throws (IOError) => ScannerOpenTsArgs, scanner_open_ts;
            i32 scannerOpenWithStop(1: Text table_name, 2: Text start_row, 3: Text stop_row,
                4: list<Text> columns)
                throws (IOError) => ScannerOpenWithStopArgs, scanner_open_with_stop;
            i32 scannerOpenWithStopTs(1: Text table_name, 2: Text start_row, 3: Text stop_row,
                4: list<Text> columns, 5: i64 timestamp)
                throws (IOError) => ScannerOpenWithStopTsArgs, scanner_open_with_stop_ts;
            i32 scannerOpenWithPrefix(1: Text table_name, 2: Text start_and_prefix,
                3: list<Text> columns)
                throws (IOError) => ScannerOpenWithPrefixArgs, scanner_open_with_prefix;
            list<TRowResult> scannerGet(1: i32 id)
                throws (IOError, IllegalArgument) => ScannerGetArgs, scanner_get;
            list<TRowResult> scannerGetList(1: i32 id, 2: i32 nb_rows)
                throws (IOError, IllegalArgument) => ScannerGetListArgs, scanner_get_list;
            void scannerClose(1: i32 id)
                throws (IOError, IllegalArgument) => ScannerCloseArgs, scanner_close;
        }
    };
}
pub(crate) use hbase_methods;

hbase_methods!(define_args);
