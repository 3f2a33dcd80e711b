// SPDX-License-Identifier: Apache-2.0

// GuavaTool drives the real Guava BloomFilter for bloomkit's interop tests
// (tests/interop/README.md), as babtool.go does for bits-and-blooms:
//
//   GuavaTool gen DIR          guava_<n>_<p>.bin (writeTo, MURMUR128_MITZ_64, stringFunnel UTF-8)
//                              and .ans; guava32_1000_01.* (MURMUR128_MITZ_32);
//                              guavalong_20000_01.* (longFunnel: keys 0..n-1 as longs)
//   GuavaTool verify DIR       reads each .back (readFrom): every key bloomkit added is
//                              there and the answers equal bloomkit's .back.ans
//   GuavaTool contains FILE N  key(0..N-1) and added(0..N-1) are present
//   GuavaTool heavy DIR        one filter of more than 2^32 bits (guava_big.*)
//   GuavaTool golden DIR       the golden files of tests/golden/foreign (README.md there)
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;

public final class GuavaTool {
  static final int PROBES = 100000;
  static final int[] SIZES = {1000, 20000, 100000};
  static final double[] RATES = {0.01, 0.001};
  static final Funnel<CharSequence> STRINGS = Funnels.stringFunnel(StandardCharsets.UTF_8);

  static String key(int i) {
    StringBuilder s = new StringBuilder("k").append(i);
    if (i % 7 == 0) s.append("-\u00e9\u65e5");
    return s.append('-').append("x".repeat(i % 37)).toString();
  }

  static String absent(int i) {
    return "a" + i + "-" + "y".repeat(i % 23);
  }

  static String added(int i) {
    return "n" + i + "-" + "z".repeat(i % 19);
  }

  static String rateName(double p) {
    return p == 0.01 ? "01" : "001";
  }

  static byte[] answers(BloomFilter<CharSequence> f) {
    byte[] out = new byte[2 * PROBES];
    for (int i = 0; i < PROBES; i++) out[i] = (byte) (f.mightContain(key(i)) ? '1' : '0');
    for (int i = 0; i < PROBES; i++) out[PROBES + i] = (byte) (f.mightContain(absent(i)) ? '1' : '0');
    return out;
  }

  static byte[] longAnswers(BloomFilter<Long> f) {
    byte[] out = new byte[2 * PROBES];
    for (int i = 0; i < 2 * PROBES; i++) out[i] = (byte) (f.mightContain((long) i) ? '1' : '0');
    return out;
  }

  static void die(String message) {
    System.err.println("GuavaTool: " + message);
    System.exit(1);
  }

  static <T> void write(Path path, BloomFilter<T> f) throws IOException {
    try (OutputStream out = Files.newOutputStream(path)) {
      f.writeTo(out);
    }
  }

  static <T> BloomFilter<T> read(Path path, Funnel<T> funnel) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return BloomFilter.readFrom(in, funnel);
    }
  }

  // An empty MURMUR128_MITZ_32 filter: Guava creates only MITZ_64 filters publicly, but
  // readFrom takes either ordinal, so the first byte of an empty filter's form is changed.
  static BloomFilter<CharSequence> mitz32(int n, double p) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BloomFilter.create(STRINGS, n, p).writeTo(bytes);
    byte[] form = bytes.toByteArray();
    form[0] = 0;
    return BloomFilter.readFrom(new ByteArrayInputStream(form), STRINGS);
  }

  static void gen(Path dir) throws IOException {
    for (int n : SIZES) {
      for (double p : RATES) {
        BloomFilter<CharSequence> f = BloomFilter.create(STRINGS, n, p);
        for (int i = 0; i < n; i++) f.put(key(i));
        String base = "guava_" + n + "_" + rateName(p);
        write(dir.resolve(base + ".bin"), f);
        Files.write(dir.resolve(base + ".ans"), answers(f));
      }
    }
    BloomFilter<CharSequence> f32 = mitz32(1000, 0.01);
    for (int i = 0; i < 1000; i++) f32.put(key(i));
    write(dir.resolve("guava32_1000_01.bin"), f32);
    Files.write(dir.resolve("guava32_1000_01.ans"), answers(f32));
    BloomFilter<Long> longs = BloomFilter.create(Funnels.longFunnel(), 20000, 0.01);
    for (long i = 0; i < 20000; i++) longs.put(i);
    write(dir.resolve("guavalong_20000_01.bin"), longs);
    Files.write(dir.resolve("guavalong_20000_01.ans"), longAnswers(longs));
  }

  static void check(Path dir, String base, int n) throws IOException {
    BloomFilter<CharSequence> f = read(dir.resolve(base + ".back"), STRINGS);
    for (int i = 0; i < n; i++) {
      if (!f.mightContain(key(i))) die(base + ".back: key(" + i + ") is missing");
    }
    for (int i = 0; i < n / 2; i++) {
      if (!f.mightContain(added(i))) die(base + ".back: added(" + i + "), added by bloomkit, is missing");
    }
    if (!Arrays.equals(answers(f), Files.readAllBytes(dir.resolve(base + ".back.ans")))) {
      die(base + ".back: answers differ from bloomkit's");
    }
  }

  static void verify(Path dir) throws IOException {
    int filters = 0;
    for (int n : SIZES) {
      for (double p : RATES) {
        check(dir, "guava_" + n + "_" + rateName(p), n);
        filters++;
      }
    }
    check(dir, "guava32_1000_01", 1000);
    System.out.println("GuavaTool: " + (filters + 1) + " filters read back, every key found, answers equal bloomkit's");
  }

  static void contains(Path path, int n) throws IOException {
    BloomFilter<CharSequence> f = read(path, STRINGS);
    for (int i = 0; i < n; i++) {
      if (!f.mightContain(key(i)) || !f.mightContain(added(i))) die(path + ": key or added(" + i + ") is missing");
    }
    System.out.println("GuavaTool: " + path + " holds all " + 2 * n + " keys");
  }

  // More than 2^32 bits: create(n = 460,000,000, 1%) has 4,408,894,208 bits; 10^5 keys.
  static void heavy(Path dir) throws IOException {
    BloomFilter<CharSequence> f = BloomFilter.create(STRINGS, 460_000_000L, 0.01);
    for (int i = 0; i < PROBES; i++) f.put(key(i));
    write(dir.resolve("guava_big.bin"), f);
    Files.write(dir.resolve("guava_big.ans"), answers(f));
  }

  // create(stringFunnel, 1000, 0.01) with key(0..999) (MITZ_64, and MITZ_32 as guava32);
  // the same with added(0..499) too; the absent(0..99999) it answers "maybe" for.
  static void golden(Path dir) throws IOException {
    for (String name : new String[] {"guava", "guava32"}) {
      BloomFilter<CharSequence> f =
          name.equals("guava") ? BloomFilter.create(STRINGS, 1000, 0.01) : mitz32(1000, 0.01);
      for (int i = 0; i < 1000; i++) f.put(key(i));
      write(dir.resolve(name + "_golden.bin"), f);
      StringBuilder fp = new StringBuilder();
      for (int i = 0; i < PROBES; i++) {
        if (f.mightContain(absent(i))) fp.append(i).append('\n');
      }
      Files.write(dir.resolve(name + "_golden.fp"), fp.toString().getBytes(StandardCharsets.UTF_8));
      for (int i = 0; i < 500; i++) f.put(added(i));
      write(dir.resolve(name + "_golden_added.bin"), f);
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 2) die("usage: GuavaTool gen|verify|heavy DIR | GuavaTool contains FILE N");
    switch (args[0]) {
      case "gen": gen(Paths.get(args[1])); break;
      case "verify": verify(Paths.get(args[1])); break;
      case "heavy": heavy(Paths.get(args[1])); break;
      case "golden": golden(Paths.get(args[1])); break;
      case "contains": contains(Paths.get(args[1]), Integer.parseInt(args[2])); break;
      default: die("unknown mode " + args[0]);
    }
  }
}
