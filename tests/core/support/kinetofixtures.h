#pragma once

// Raw Kineto fixture files read independently of the readers under test: gunzip with zlib,
// parse with QJsonDocument, so tests can count what the file holds.

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include "core/io/chromejsonreader.h"

#include <zlib.h>

#include <memory>

#include <string>

// A missing real fixture skips the case on a user's clone and fails it in CI, which has them.
#define TRACEDESK_REQUIRE_FIXTURE(path)                                                        \
    do {                                                                                       \
        if (!QFile::exists(path)) {                                                            \
            const QString why = "real fixture not found: " + QString(path)                     \
                                + " (../shared/fixtures/real)";                                \
            if (qEnvironmentVariableIsSet("CI"))                                               \
                QFAIL(qPrintable(why));                                                        \
            QSKIP(qPrintable(why));                                                            \
        }                                                                                      \
    } while (false)

namespace testsupport {

inline QString realChromeJsonDir()
{
    return QString(TRACEDESK_SHARED_FIXTURES) + "/chrome_json/";
}

// The Kineto (PyTorch profiler) fixtures among the real Chrome JSON files.
inline QStringList kinetoFixtureNames()
{
    return {"kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
            "kineto__test__gpu_metrics_input.json",
            "hta__amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
            "hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
            "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
            "hta__mtia_inference_trace__mtia_inference_rank_0.json.gz",
            "hta__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
            "hta__triton_example__triton_example.json.gz",
            "tracelens__b200__eager_trace.json.gz",
            "tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz",
            "tracelens__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
            "tracelens__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz",
            "tracelens__mi300__gaunernst_bert-small-uncased__1016001.json.gz",
            "tracelens__torch_compile_triton__trace.json.gz"};
}

// The file's bytes, gunzipped when they start with the gzip magic.
inline QByteArray readMaybeGzip(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray raw = f.readAll();
    if (raw.size() < 2 || uint8_t(raw[0]) != 0x1f || uint8_t(raw[1]) != 0x8b)
        return raw;
    QByteArray out;
    z_stream zs{};
    inflateInit2(&zs, 15 + 32);
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(raw.data()));
    zs.avail_in = uInt(raw.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        zs.next_out = reinterpret_cast<Bytef *>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buf, int(sizeof buf - zs.avail_out));
    }
    inflateEnd(&zs);
    return out;
}

// The top-level object of a fixture (empty when it does not parse).
inline QJsonObject readFixtureObject(const QString &path)
{
    return QJsonDocument::fromJson(readMaybeGzip(path)).object();
}

// A Chrome JSON / Kineto text written by a test, loaded through the real reader (null, with
// the reader's message as a warning, when it refuses the text).
inline std::shared_ptr<tracedesk::core::Trace> loadText(const std::string &json)
{
    using namespace tracedesk::core;
    auto r = readChromeJsonBytes("test.pt.trace.json", json.data(), json.size(), nullptr,
                                 LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    return r.value();
}

} // namespace testsupport
