//! The repair stage of a byte stream: between decompression and a decoder.

use bytes::Bytes;
use datafusion_common::Result;
use futures::stream::{self, BoxStream, StreamExt};
use utf8guard::{Repairer, Replacement};

/// `bytes` repaired under `replacement`: each piece as it comes, but for
/// the bytes of a character it ends in the middle of, which go out with the
/// next piece (or, repaired as cut short, at the end). So the output is the
/// repair of the whole stream whatever the pieces, and it holds no more
/// than a piece at a time.
pub(crate) fn repaired(
    bytes: BoxStream<'_, Result<Bytes>>,
    replacement: Replacement,
) -> BoxStream<'_, Result<Bytes>> {
    // `None` once the input ended or failed: nothing more is asked of it.
    let state = (bytes, Some(Repairer::new(replacement)));
    stream::unfold(state, |(mut bytes, mut repairer)| async move {
        loop {
            let active = repairer.as_mut()?;
            let mut text = String::new();
            match bytes.next().await {
                Some(Ok(piece)) => {
                    text.reserve(piece.len());
                    active.push(&piece, &mut text);
                }
                Some(Err(error)) => return Some((Err(error), (bytes, None))),
                None => {
                    active.finish(&mut text);
                    repairer = None;
                }
            }
            // A piece that was all held back (a character's first bytes)
            // gives nothing yet; an empty piece would read as no data.
            if !text.is_empty() {
                return Some((Ok(Bytes::from(text)), (bytes, repairer)));
            }
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::TryStreamExt;

    /// Bad bytes of every kind, split characters' worth of them, and lines.
    const TEXT: &[u8] = b"a,\xC3\xA9\xE9\n\xE2\x82\xAC\x80\xBF\n\xED\xA0\x80\xF0\x9F\x98\x80\n\
        \xC0\xAF\xFF\n\xF0\x9F\x98\n\xE2\x82";

    fn repair_pieces(pieces: &[&[u8]], replacement: Replacement) -> String {
        let bytes: Vec<Result<Bytes>> = pieces
            .iter()
            .map(|piece| Ok(Bytes::copy_from_slice(piece)))
            .collect();
        let pieces: Vec<Bytes> =
            block_on(repaired(stream::iter(bytes).boxed(), replacement).try_collect()).unwrap();
        String::from_utf8(pieces.concat()).unwrap()
    }

    #[test]
    fn pieces_of_any_size_give_the_repair_of_the_whole() {
        for replacement in Replacement::ALL {
            let whole = utf8guard::repair(TEXT, replacement);
            for size in 1..=TEXT.len() {
                let pieces: Vec<&[u8]> = TEXT.chunks(size).collect();
                assert_eq!(
                    repair_pieces(&pieces, replacement),
                    whole,
                    "{replacement}, {size}"
                );
            }
        }
    }

    /// What a partition's range read relies on: a range that starts just
    /// after a `\n` and ends with one, repaired afresh, gives the bytes the
    /// whole file's repair gives for it.
    #[test]
    fn ranges_cut_after_newlines_repair_as_the_whole() {
        let cuts: Vec<usize> = (0..TEXT.len())
            .filter(|&i| TEXT[i] == b'\n')
            .map(|i| i + 1)
            .collect();
        for replacement in Replacement::ALL {
            let whole = utf8guard::repair(TEXT, replacement);
            // Every set of cuts: each bit of `mask` cuts after one newline.
            for mask in 0..1u32 << cuts.len() {
                let mut start = 0;
                let mut text = String::new();
                for (bit, &cut) in cuts.iter().enumerate() {
                    if mask & 1 << bit != 0 {
                        text += &repair_pieces(&[&TEXT[start..cut]], replacement);
                        start = cut;
                    }
                }
                text += &repair_pieces(&[&TEXT[start..]], replacement);
                assert_eq!(text, whole, "{replacement}, cuts {mask:b}");
            }
        }
    }

    #[test]
    fn an_error_ends_the_stream() {
        let bytes: Vec<Result<Bytes>> = vec![
            Ok(Bytes::from_static(b"ab\xE2\x82")),
            Err(datafusion_common::DataFusionError::Execution("gone".into())),
            Ok(Bytes::from_static(b"\xAC")),
        ];
        let out: Vec<Result<Bytes>> =
            block_on(repaired(stream::iter(bytes).boxed(), Replacement::Jvm).collect());
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].as_ref().unwrap().as_ref(), b"ab");
        assert!(out[1].as_ref().unwrap_err().to_string().contains("gone"));
    }
}
