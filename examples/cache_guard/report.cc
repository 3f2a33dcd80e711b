// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "util.h"

namespace cache_guard {
namespace {

std::string Thousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

std::string Bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (std::uint64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  }
  return text;
}

// JSON numbers: finite, enough digits, no locale.
std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + '"';
}

std::string ShellQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

void PrintTable(std::FILE* out, const RunSummary& summary, std::span<const ModeReport> reports) {
  std::fprintf(out,
               "\n%s users in %s; %.0f%% of requests for missing ids (%s of them); %u clients, %.0f s per mode\n\n",
               Thousands(summary.users).c_str(), summary.database.c_str(), summary.missing_ratio * 100,
               Thousands(summary.missing_keyspace).c_str(), summary.clients, summary.seconds_per_mode);
  std::fprintf(out, "%-12s %11s %9s %11s %17s %10s %8s %8s %6s\n", "mode", "requests", "req/s", "DB queries",
               "DB q./1000 missing", "cache mem", "p50 ms", "p99 ms", "wrong");
  for (const auto& r : reports) {
    std::fprintf(out, "%-12s %11s %9.0f %11s %17.1f %10s %8.3f %8.3f %6llu\n",
                 std::string(GuardModeName(r.mode)).c_str(), Thousands(r.requests).c_str(), r.requests_per_s,
                 Thousands(r.db_queries).c_str(), r.db_queries_per_1000_missing(), Bytes(r.cache_bytes).c_str(),
                 r.p50_ms, r.p99_ms, static_cast<unsigned long long>(r.wrong_answers));
  }
  for (const auto& r : reports) {
    if (r.mode != GuardMode::kBloom) continue;
    const double probe_rate =
        r.filter_probe_ids == 0 ? 0.0
                                : static_cast<double>(r.filter_probe_passed) / static_cast<double>(r.filter_probe_ids);
    std::fprintf(out,
                 "\nfilter: %s for %s ids (capacity %s, target %.3g%% false positives, loaded in %.2f s); measured "
                 "false positives: %.3f%% of missing-id requests, %.3f%% of %s distinct probes\n",
                 Bytes(r.filter_bytes).c_str(), Thousands(r.filter_items).c_str(), Thousands(r.filter_capacity).c_str(),
                 r.filter_target_fp_rate * 100, r.filter_load_seconds, r.filter_fp_rate * 100, probe_rate * 100,
                 Thousands(r.filter_probe_ids).c_str());
  }
  for (const auto& r : reports) {
    if (r.inserted == 0) continue;
    std::fprintf(out, "rows inserted during %s: %s, read back at once: %s\n",
                 std::string(GuardModeName(r.mode)).c_str(), Thousands(r.inserted).c_str(),
                 Thousands(r.inserted_found).c_str());
  }
}

Status WriteJson(const std::string& path, const RunSummary& summary, std::span<const ModeReport> reports) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return MakeError(ErrorCode::kIoError, "cannot write ", path);
  out << "[\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const ModeReport& r = reports[i];
    out << "  {\"mode\": " << Quoted(GuardModeName(r.mode)) << ", \"database\": " << Quoted(summary.database)
        << ", \"users\": " << summary.users << ", \"missing_ratio\": " << Number(summary.missing_ratio)
        << ", \"missing_keyspace\": " << summary.missing_keyspace << ", \"clients\": " << r.clients
        << ", \"seconds\": " << Number(r.seconds) << ", \"requests\": " << r.requests
        << ", \"requests_missing\": " << r.requests_missing << ", \"requests_per_s\": " << Number(r.requests_per_s)
        << ", \"db_queries\": " << r.db_queries << ", \"db_queries_for_missing\": " << r.db_queries_for_missing
        << ", \"db_queries_per_1000_missing\": " << Number(r.db_queries_per_1000_missing())
        << ", \"cache_hits\": " << r.cache_hits << ", \"cache_bytes\": " << r.cache_bytes
        << ", \"cache_keys\": " << r.cache_keys << ", \"wrong_answers\": " << r.wrong_answers
        << ", \"p50_ms\": " << Number(r.p50_ms) << ", \"p99_ms\": " << Number(r.p99_ms)
        << ", \"mean_ms\": " << Number(r.mean_ms) << ", \"inserted\": " << r.inserted
        << ", \"inserted_found\": " << r.inserted_found;
    if (r.mode == GuardMode::kBloom) {
      out << ", \"filter_bytes\": " << r.filter_bytes << ", \"filter_capacity\": " << r.filter_capacity
          << ", \"filter_items\": " << r.filter_items
          << ", \"filter_target_fp_rate\": " << Number(r.filter_target_fp_rate)
          << ", \"filter_fp_rate\": " << Number(r.filter_fp_rate) << ", \"filter_rejections\": " << r.filter_rejections
          << ", \"filter_probe_ids\": " << r.filter_probe_ids << ", \"filter_probe_passed\": " << r.filter_probe_passed
          << ", \"filter_load_seconds\": " << Number(r.filter_load_seconds);
    }
    out << "}" << (i + 1 < reports.size() ? "," : "") << "\n";
  }
  out << "]\n";
  out.close();
  if (!out) return MakeError(ErrorCode::kIoError, "cannot write ", path);
  return {};
}

Status WriteChart(const std::string& png_path, const RunSummary& summary, std::span<const ModeReport> reports) {
  const std::string data_path = png_path + ".dat";
  const std::string script_path = png_path + ".gp";
  {
    std::ofstream data(data_path, std::ios::trunc);
    data << "# mode db_queries_per_1000_missing db_queries_per_s p50_ms p99_ms\n";
    for (const auto& r : reports) {
      data << GuardModeName(r.mode) << ' ' << Number(r.db_queries_per_1000_missing()) << ' '
           << Number(static_cast<double>(r.db_queries) / r.seconds) << ' ' << Number(r.p50_ms) << ' '
           << Number(r.p99_ms) << '\n';
    }
    if (!data) return MakeError(ErrorCode::kIoError, "cannot write ", data_path);
  }
  {
    std::ofstream script(script_path, std::ios::trunc);
    script << "set terminal pngcairo size 1200,500 font 'sans,11'\n"
           << "set output " << Quoted(png_path) << "\n"
           << "set multiplot layout 1,2 title "
           << Quoted(Message("cache penetration: ", summary.users, " users, ", summary.missing_ratio * 100,
                             "% of requests for missing ids, ", summary.clients, " clients"))
           << "\n"
           << "set style fill solid 0.85 border -1\nset grid ytics\nset key top left\nset yrange [0:*]\n"
           << "set offsets 0, 0, graph 0.1, 0\nset bmargin 4\n"
           << "set xrange [-0.6:" << static_cast<double>(reports.size()) - 0.4 << "]\n"
           << "set title 'database queries'\nset ylabel 'per 1000 requests for missing ids'\n"
           << "plot " << Quoted(data_path)
           << " using 0:2:(0.6):xtic(sprintf(\"%s\\n%.0f DB queries/s\", strcol(1), $3)) with boxes notitle lc rgb "
              "'#c0392b', '' using 0:2:(sprintf('%.1f', $2)) "
              "with labels offset 0,0.8 notitle\n"
           << "set style data histograms\nset style histogram clustered gap 1\nset boxwidth 0.9\n"
           << "set title 'latency per request'\nset ylabel 'milliseconds (log scale)'\nset logscale y\n"
           << "set yrange [*:*]\nset offsets 0, 0, 0, 0\n"
           << "plot " << Quoted(data_path)
           << " using 4:xtic(1) title 'p50' lc rgb '#2980b9', '' using 5 title 'p99' lc rgb '#8e44ad'\n"
           << "unset multiplot\n";
    if (!script) return MakeError(ErrorCode::kIoError, "cannot write ", script_path);
  }
  const std::string command = "gnuplot " + ShellQuoted(script_path) + " 2>&1";
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    return MakeError(ErrorCode::kIoError, "gnuplot failed (exit status ", rc, ") on ", script_path,
                     "; install gnuplot-nox");
  }
  return {};
}

}  // namespace cache_guard
