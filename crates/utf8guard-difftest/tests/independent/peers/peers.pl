# Independent validators for the cross-check in ../main.rs: Perl's
# Encode module.
#
#     perl peers.pl MODE INPUT OUTPUT [MODE INPUT OUTPUT]...
#
# INPUT holds one input per line, in hex; one line per input is written to
# OUTPUT: "ok", or "err V" when the input is rejected after its first V bytes
# (Encode::decode with FB_QUIET decodes the longest acceptable prefix and
# leaves the rest in its argument).
#
# Modes:
#   UTF-8   Encode's strict UTF-8
#   utf8    Encode's lax "utf8": Perl's internal form (surrogates, code
#           points above U+10FFFF, Perl's own 7- and 13-byte forms)
use strict;
use warnings;
use Encode ();

@ARGV && @ARGV % 3 == 0 or die "usage: perl peers.pl MODE INPUT OUTPUT [MODE INPUT OUTPUT]...\n";
while (my ($mode, $src, $dst) = splice(@ARGV, 0, 3)) {
    $mode eq 'UTF-8' || $mode eq 'utf8' or die "unknown mode $mode\n";
    my $encoding = Encode::find_encoding($mode) or die "no encoding $mode\n";
    open(my $in, '<', $src) or die "$src: $!\n";
    open(my $out, '>', $dst) or die "$dst: $!\n";
    while (my $line = <$in>) {
        chomp $line;
        my $bytes = pack('H*', $line);
        my $length = length $bytes;
        # decode() with FB_QUIET removes what it decoded from its argument.
        $encoding->decode($bytes, Encode::FB_QUIET);
        print $out length($bytes) == 0 ? "ok\n" : "err " . ($length - length($bytes)) . "\n";
    }
    close($out) or die "$dst: $!\n";
}
