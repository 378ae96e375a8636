//! Transport detection (buffered or framed, binary or compact) and message I/O over a stream.
//!
//! The first bytes a client sends decide, once per connection (thrift-gateway.md §3.1):
//! `0x80` strict binary buffered, `0x82` compact buffered; otherwise the first four bytes are a
//! frame length when the fifth is `0x80`/`0x82`, else an old non-strict binary call.
use super::memory::Reservation;
use super::protocol::{Limits, MessageHeader, ProtoError, Protocol, Reader, Value};
use std::io::{self, Read, Write};

/// How messages are delimited on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Messages back to back on the stream.
    Buffered,
    /// Each message preceded by its i32 big-endian length.
    Framed,
}

/// A reader that first replays bytes already consumed during detection.
#[derive(Debug)]
pub struct Replay<R> {
    prefix: Vec<u8>,
    pos: usize,
    inner: R,
}

impl<R: Read> Replay<R> {
    /// Wraps `inner`, replaying `prefix` first.
    pub fn new(prefix: Vec<u8>, inner: R) -> Self {
        Replay {
            prefix,
            pos: 0,
            inner,
        }
    }
}

impl<R> Replay<R> {
    /// The wrapped reader.
    pub fn inner(&self) -> &R {
        &self.inner
    }
}

impl<R: Read> Read for Replay<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.prefix.len() {
            let n = buf.len().min(self.prefix.len() - self.pos);
            buf[..n].copy_from_slice(&self.prefix[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.prefix.len() {
                self.prefix = Vec::new();
                self.pos = 0;
            }
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// Reads the first bytes of a connection and decides its transport and protocol.
/// Returns `Ok(None)` when the peer closed without sending anything, and the consumed bytes
/// (to be replayed) otherwise.
pub fn detect<R: Read>(r: &mut R) -> io::Result<Option<(Transport, Protocol, Vec<u8>)>> {
    let mut first = [0u8; 1];
    loop {
        match r.read(&mut first) {
            Ok(0) => return Ok(None),
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    match first[0] {
        0x80 => return Ok(Some((Transport::Buffered, Protocol::Binary, vec![0x80]))),
        0x82 => return Ok(Some((Transport::Buffered, Protocol::Compact, vec![0x82]))),
        _ => {}
    }
    let mut rest = [0u8; 4];
    r.read_exact(&mut rest)?;
    let mut prefix = vec![first[0]];
    prefix.extend_from_slice(&rest);
    Ok(Some(match rest[3] {
        0x80 => (Transport::Framed, Protocol::Binary, prefix),
        0x82 => (Transport::Framed, Protocol::Compact, prefix),
        _ => (Transport::Buffered, Protocol::Binary, prefix),
    }))
}

/// One decoded incoming message.
#[derive(Debug)]
pub struct Incoming {
    /// The header.
    pub header: MessageHeader,
    /// The argument struct.
    pub body: Vec<(i16, Value)>,
    /// The message's charge to the request-memory budget: drop it (with `body`) once the
    /// call has been dispatched.
    pub memory: Reservation,
}

/// Why reading a message failed, with the header when it was decoded.
#[derive(Debug)]
pub struct ReadFailure {
    /// The decode error.
    pub error: ProtoError,
    /// The header, when the failure came after it (so an exception reply can be addressed).
    pub header: Option<MessageHeader>,
}

/// Reads one message from `r` according to `transport`, charging nothing to any budget.
pub fn read_message<R: Read>(
    r: &mut R,
    transport: Transport,
    proto: Protocol,
    limits: Limits,
) -> Result<Incoming, ReadFailure> {
    read_message_metered(r, transport, proto, limits, Reservation::unmetered())
}

/// Reads one message from `r` according to `transport`, charging its memory to `memory`
/// (see [`super::memory`]): a frame's declared length is reserved twice over (the frame and
/// the strings decoded from it) before it is read; strings and values are charged as they
/// are decoded. The returned [`Incoming::memory`] keeps the decoded message's charge; on
/// failure everything is given back.
pub fn read_message_metered<R: Read>(
    r: &mut R,
    transport: Transport,
    proto: Protocol,
    limits: Limits,
    mut memory: Reservation,
) -> Result<Incoming, ReadFailure> {
    let fail = |error, header| ReadFailure { error, header };
    match transport {
        Transport::Buffered => {
            let mut rd = Reader::new(r, proto, limits.max_message, limits).metered(memory);
            let header = rd.read_message_header().map_err(|e| fail(e, None))?;
            let body = rd
                .read_struct()
                .map_err(|e| fail(e, Some(header.clone())))?;
            Ok(Incoming {
                header,
                body,
                memory: rd.into_meter(),
            })
        }
        Transport::Framed => {
            let mut len = [0u8; 4];
            let mut got = 0;
            while got < 4 {
                match r.read(&mut len[got..]) {
                    Ok(0) if got == 0 => return Err(fail(ProtoError::Eof, None)),
                    Ok(0) => {
                        return Err(fail(
                            ProtoError::Io(io::ErrorKind::UnexpectedEof.into()),
                            None,
                        ));
                    }
                    Ok(n) => got += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(fail(ProtoError::Io(e), None)),
                }
            }
            let n = i32::from_be_bytes(len);
            if n < 0 || n as usize > limits.max_message {
                return Err(fail(
                    ProtoError::TooLarge(format!(
                        "frame of {n} bytes (limit {})",
                        limits.max_message
                    )),
                    None,
                ));
            }
            let n = n as usize;
            // Room for the frame and the strings copied out of it, before either exists.
            memory
                .reserve_ahead(n.saturating_mul(2))
                .and_then(|()| memory.charge(n))
                .map_err(|e| fail(e, None))?;
            let mut frame = Vec::with_capacity(n.min(1 << 20));
            r.take(n as u64)
                .read_to_end(&mut frame)
                .map_err(|e| fail(ProtoError::Io(e), None))?;
            if frame.len() != n {
                return Err(fail(
                    ProtoError::Io(io::ErrorKind::UnexpectedEof.into()),
                    None,
                ));
            }
            let mut rd = Reader::new(&frame[..], proto, n, limits).metered(memory);
            let header = rd.read_message_header().map_err(|e| {
                // An empty frame is a protocol error, not a clean close.
                let e = match e {
                    ProtoError::Eof => ProtoError::Invalid("empty frame".into()),
                    e => e,
                };
                fail(e, None)
            })?;
            let body = rd
                .read_struct()
                .map_err(|e| fail(e, Some(header.clone())))?;
            let mut memory = rd.into_meter();
            drop(frame);
            memory.uncharge(n);
            Ok(Incoming {
                header,
                body,
                memory,
            })
        }
    }
}

/// Writes one encoded message (framing it when needed) and flushes.
pub fn write_message<W: Write>(w: &mut W, transport: Transport, msg: &[u8]) -> io::Result<()> {
    match transport {
        Transport::Buffered => w.write_all(msg)?,
        Transport::Framed if msg.len() > 64 * 1024 => {
            // Two writes rather than a copy of a reply that may be tens of MiB.
            w.write_all(&(msg.len() as u32).to_be_bytes())?;
            w.write_all(msg)?;
        }
        Transport::Framed => {
            let mut out = Vec::with_capacity(msg.len() + 4);
            out.extend_from_slice(&(msg.len() as u32).to_be_bytes());
            out.extend_from_slice(msg);
            w.write_all(&out)?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{MSG_CALL, encode_message};

    #[test]
    fn detects_all_four_modes_and_reads_messages() {
        for proto in [Protocol::Binary, Protocol::Compact] {
            for transport in [Transport::Buffered, Transport::Framed] {
                let m1 = encode_message(proto, "getTableNames", MSG_CALL, 0, &[]);
                let m2 = encode_message(
                    proto,
                    "isTableEnabled",
                    MSG_CALL,
                    1,
                    &[(1, Value::bin("t"))],
                );
                let mut wire = Vec::new();
                write_message(&mut wire, transport, &m1).unwrap();
                write_message(&mut wire, transport, &m2).unwrap();
                let mut src = &wire[..];
                let (t, p, prefix) = detect(&mut src).unwrap().unwrap();
                assert_eq!((t, p), (transport, proto));
                let mut r = Replay::new(prefix, src);
                let a = read_message(&mut r, t, p, Limits::default()).unwrap();
                let b = read_message(&mut r, t, p, Limits::default()).unwrap();
                assert_eq!(a.header.name, "getTableNames");
                assert_eq!(b.header.name, "isTableEnabled");
                assert_eq!(b.header.seqid, 1);
                assert_eq!(b.body, vec![(1, Value::bin("t"))]);
                let end = read_message(&mut r, t, p, Limits::default()).unwrap_err();
                assert!(matches!(end.error, ProtoError::Eof));
            }
        }
    }

    #[test]
    fn oversized_frame_is_refused() {
        let wire = [0x7f, 0xff, 0xff, 0xff, 0x80, 1, 0, 1];
        let mut src = &wire[..];
        let (t, p, prefix) = detect(&mut src).unwrap().unwrap();
        assert_eq!(t, Transport::Framed);
        let mut r = Replay::new(prefix, src);
        let e = read_message(&mut r, t, p, Limits::default()).unwrap_err();
        assert!(matches!(e.error, ProtoError::TooLarge(_)));
    }
}
