//! The dispatcher: a call's method name picks its typed handler from the method table
//! (`methods.rs`), whose result becomes the method's result struct.
use super::call::Fail;
use super::methods::*;
use super::protocol::Value;
use super::server::Gateway;
use super::service::Service;
use super::types::Fields;

/// The result of dispatching one call.
#[derive(Debug)]
pub enum Dispatch {
    /// The method exists; here is its result struct.
    Reply(Vec<(i16, Value)>),
    /// No such method.
    UnknownMethod,
}

/// Decodes `f` as method `M`'s arguments, runs `handler` and encodes its result struct.
pub(crate) fn call<'a, M: Method<'a>>(
    f: Fields<'a>,
    handler: impl FnOnce(M) -> Result<M::Success, Fail>,
) -> Vec<(i16, Value)> {
    result_struct(handler(M::decode(f)), M::THROWS)
}

/// Writes `dispatch` of a gateway's service type from its method table: one match arm per
/// method (`hbase_methods!(define_dispatch for Service;)`).
macro_rules! define_dispatch {
    (for $svc:ty; $(
        $ret:ident $(<$($ret_arg:ident),+>)?
            $wire:ident ( $($arg:tt)* ) $(throws ($($ex:ident),+))? => $args:ident, $handler:ident;
    )*) => {
        impl $svc {
            /// Runs one call and builds its result struct, within `ctx`'s reply budget.
            pub fn dispatch(
                &self,
                method: &str,
                args: &[(i16, $crate::thrift::protocol::Value)],
                ctx: &mut $crate::thrift::call::CallCtx,
            ) -> $crate::thrift::dispatch::Dispatch {
                use $crate::thrift::methods::Method as _;
                let f = $crate::thrift::types::Fields(args);
                $crate::thrift::dispatch::Dispatch::Reply(match method {
                    $($args::NAME => {
                        $crate::thrift::dispatch::call(f, |a: $args<'_>| self.$handler(a, ctx))
                    })*
                    _ => return $crate::thrift::dispatch::Dispatch::UnknownMethod,
                })
            }
        }
    };
}
pub(crate) use define_dispatch;

hbase_methods!(define_dispatch for Service;);

impl Gateway for Service {
    fn dispatch(
        &self,
        method: &str,
        args: &[(i16, Value)],
        ctx: &mut super::call::CallCtx,
    ) -> Dispatch {
        Service::dispatch(self, method, args, ctx)
    }

    fn scanners(&self) -> &super::scanners::ScannerRegistry {
        &self.scanners
    }

    fn db(&self) -> &cellbase::Db {
        &self.db
    }

    fn into_db(self) -> cellbase::Db {
        self.db
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thrift::call::CallCtx;
    use crate::thrift::call::ReplyBudget;
    use crate::thrift::protocol::T_STRUCT;
    use cellbase::Db;
    use std::time::Duration;

    fn ctx() -> CallCtx {
        CallCtx {
            budget: ReplyBudget::standalone(1 << 20),
            conn: 0,
        }
    }

    fn call(s: &Service, method: &str, args: Vec<(i16, Value)>) -> Vec<(i16, Value)> {
        match s.dispatch(method, &args, &mut ctx()) {
            Dispatch::Reply(r) => r,
            Dispatch::UnknownMethod => panic!("{method} is unknown"),
        }
    }

    /// The exception's field id and message.
    fn failure(r: &[(i16, Value)]) -> (i16, String) {
        match r {
            [(id, Value::Struct(f))] if *id > 0 => match f.as_slice() {
                [(1, Value::Binary(m))] => (*id, String::from_utf8_lossy(m).into_owned()),
                other => panic!("not an exception: {other:?}"),
            },
            other => panic!("not a failure: {other:?}"),
        }
    }

    #[test]
    fn results_carry_success_or_the_declared_exception() {
        let s = Service::new(
            Db::temporary().unwrap(),
            Duration::from_secs(60),
            8,
            8,
            9090,
        );
        for m in ["", "gettablenames", "getTableNamesX", "grant"] {
            assert!(matches!(
                s.dispatch(m, &[], &mut ctx()),
                Dispatch::UnknownMethod
            ));
        }
        let create = |name: &str, families: Vec<Value>| {
            let args = vec![(1, Value::bin(name)), (2, Value::List(T_STRUCT, families))];
            call(&s, "createTable", args)
        };
        let cf = Value::Struct(vec![(1, Value::bin("cf:"))]);
        // A void success is an empty result struct.
        assert!(create("t", vec![cf.clone()]).is_empty());
        // createTable declares AlreadyExists (3) and IllegalArgument (2).
        let r = create("t", vec![cf]);
        assert_eq!(failure(&r), (3, "table name already in use".into()));
        assert_eq!(failure(&create("u", vec![])).0, 2);
        // A non-void success is field 0.
        let r = call(&s, "isTableEnabled", vec![(1, Value::bin("t"))]);
        assert_eq!(r, vec![(0, Value::Bool(true))]);
        // getRow declares only IOError: a missing argument goes back in field 1 ...
        let r = call(&s, "getRow", vec![(2, Value::bin("r"))]);
        assert_eq!(failure(&r), (1, "missing argument tableName".into()));
        // ... while mutateRowTs and scannerClose declare IllegalArgument.
        let r = call(
            &s,
            "mutateRowTs",
            vec![(1, Value::bin("t")), (2, Value::bin("r"))],
        );
        assert_eq!(failure(&r), (2, "missing argument timestamp".into()));
        let r = call(&s, "scannerClose", vec![(1, Value::I32(7))]);
        assert_eq!(failure(&r), (2, "scanner ID is invalid".into()));
        // An argument of another wire type counts as missing.
        let args = vec![
            (1, Value::bin("t")),
            (2, Value::bin("r")),
            (3, Value::bin("cf:q")),
            (4, Value::I64(3)),
        ];
        let r = call(&s, "getVer", args);
        assert_eq!(failure(&r), (1, "missing argument numVersions".into()));
    }
}
