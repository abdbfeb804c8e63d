#include "core/io/decompress.h"

#include <QtTest>

#include "core/support/compressbytes.h"

#include <filesystem>
#include <fstream>
#include <random>

using namespace tracedesk::core;
using testsupport::gzipBytes;
using testsupport::zstdBytes;

namespace {

std::string sampleText()
{
    std::string s;
    for (int i = 0; i < 50000; ++i)
        s += "{\"ph\":\"X\",\"ts\":" + std::to_string(i) + "},";
    return s;
}

// `plain` as stored with compression `kind` (a Compression value).
std::string storedAs(int kind, const std::string &plain)
{
    return kind == int(Compression::Gzip)   ? gzipBytes(plain)
           : kind == int(Compression::Zstd) ? zstdBytes(plain)
                                            : plain;
}

class TemporaryFile
{
public:
    explicit TemporaryFile(const std::string &bytes)
    {
        static int counter = 0;
        m_path = (std::filesystem::temp_directory_path()
                  / ("tst_decompress_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                     .string();
        std::ofstream(m_path, std::ios::binary) << bytes;
    }
    ~TemporaryFile() { std::filesystem::remove(m_path); }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

constexpr uint64_t kNoLimit = uint64_t(16) << 30;

} // namespace

class TestDecompress : public QObject
{
    Q_OBJECT

private slots:
    void detectsByMagicNotName()
    {
        const std::string gz = gzipBytes("x");
        const std::string zs = zstdBytes("x");
        QCOMPARE(detectCompression(gz.data(), gz.size()), Compression::Gzip);
        QCOMPARE(detectCompression(zs.data(), zs.size()), Compression::Zstd);
        QCOMPARE(detectCompression("{}", 2), Compression::None);
        QCOMPARE(detectCompression("", 0), Compression::None);
    }

    void roundTrip_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("plain") << int(Compression::None);
        QTest::newRow("gzip") << int(Compression::Gzip);
        QTest::newRow("zstd") << int(Compression::Zstd);
    }

    void roundTrip()
    {
        QFETCH(int, kind);
        const std::string plain = sampleText();
        const std::string stored = storedAs(kind, plain);
        TemporaryFile file(stored); // no telling extension on purpose
        LoadControl control;
        control.addTotal(stored.size());
        auto r = readWholeFile(file.path(), &control, kNoLimit);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(int(r.value().compression), kind);
        QCOMPARE(r.value().fileBytes, uint64_t(stored.size()));
        QCOMPARE(r.value().buffer.size(), plain.size());
        QVERIFY(r.value().buffer.view() == plain);
        // The padding after the content is readable and zeroed.
        for (size_t i = 0; i < PaddedBuffer::kPadding; ++i)
            QCOMPARE(r.value().buffer.data()[plain.size() + i], '\0');
        QCOMPARE(control.done(), uint64_t(stored.size()));
    }

    void headOfEveryKind()
    {
        QFETCH(int, kind);
        const std::string plain = sampleText();
        const std::string stored = storedAs(kind, plain);
        TemporaryFile file(stored);
        QCOMPARE(readFileHead(file.path(), 1000), plain.substr(0, 1000));
        QCOMPARE(readFileHead(file.path(), plain.size() + 10), plain);   // shorter content
        std::string cut = stored.substr(0, stored.size() / 2);           // truncated data
        TemporaryFile half(cut);
        QCOMPARE(readFileHead(half.path(), 100), plain.substr(0, 100));
        QVERIFY(readFileHead(file.path() + ".missing", 100).empty());
    }
    void headOfEveryKind_data() { roundTrip_data(); }

    void concatenatedGzipMembers()
    {
        TemporaryFile file(gzipBytes("hello ") + gzipBytes("world"));
        auto r = readWholeFile(file.path(), nullptr, kNoLimit);
        QVERIFY(r.ok());
        QVERIFY(r.value().buffer.view() == "hello world");
    }

    void truncated_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gzip") << int(Compression::Gzip);
        QTest::newRow("zstd") << int(Compression::Zstd);
    }

    void truncated()
    {
        QFETCH(int, kind);
        std::string bytes = kind == int(Compression::Gzip) ? gzipBytes(sampleText())
                                                           : zstdBytes(sampleText());
        bytes.resize(bytes.size() / 2);
        TemporaryFile file(bytes);
        auto r = readWholeFile(file.path(), nullptr, kNoLimit);
        QVERIFY(!r.ok());
        QVERIFY2(r.message().rfind(file.path() + ": ", 0) == 0, r.message().c_str());
        QVERIFY2(r.message().find("truncated") != std::string::npos, r.message().c_str());
    }

    void bombIsRefusedEarly_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gzip") << int(Compression::Gzip);
        QTest::newRow("zstd") << int(Compression::Zstd);
    }

    void bombIsRefusedEarly()
    {
        QFETCH(int, kind);
        const std::string zeros(size_t(200) << 20, '\0');
        const std::string bytes = kind == int(Compression::Gzip) ? gzipBytes(zeros) : zstdBytes(zeros);
        TemporaryFile file(bytes);
        const uint64_t limit = uint64_t(10) << 20;
        auto r = readWholeFile(file.path(), nullptr, limit);
        QVERIFY(!r.ok());
        QCOMPARE(r.message(), file.path() + ": expands past " + std::to_string(limit) + " bytes (limit)");
    }

    void corruptAndOddInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected"); // error substring; empty = reads as plain
        std::mt19937 rng(11);
        QByteArray random(8192, '\0');
        for (char &c : random)
            c = char(rng() & 0xff);
        random[0] = 'r';
        QByteArray badGzip("\x1f\x8b\x08\x00garbage-garbage-garbage", 27);
        QByteArray badZstd("\x28\xb5\x2f\xfdgarbage-garbage-garbage", 27);
        QTest::newRow("empty") << QByteArray() << "";
        QTest::newRow("random bytes") << random << "";
        QTest::newRow("gzip magic then garbage") << badGzip << "gzip";
        QTest::newRow("zstd magic then garbage") << badZstd << "zstd";
    }

    void corruptAndOddInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        TemporaryFile file(bytes.toStdString());
        auto r = readWholeFile(file.path(), nullptr, kNoLimit);
        if (expected.isEmpty()) {
            QVERIFY(r.ok());
            QCOMPARE(r.value().buffer.size(), size_t(bytes.size()));
            QCOMPARE(r.value().compression, Compression::None);
            return;
        }
        QVERIFY(!r.ok());
        QVERIFY2(r.message().rfind(file.path() + ": ", 0) == 0, r.message().c_str());
        QVERIFY2(r.message().find(expected.toStdString()) != std::string::npos, r.message().c_str());
    }

    void missingFile()
    {
        auto r = readWholeFile("/nonexistent/dir/trace.json.gz", nullptr, kNoLimit);
        QVERIFY(!r.ok());
        QVERIFY(r.message().find("/nonexistent/dir/trace.json.gz: cannot open") == 0);
    }

    void cancelled()
    {
        TemporaryFile file(gzipBytes(sampleText()));
        LoadControl control;
        control.requestCancel();
        auto r = readWholeFile(file.path(), &control, kNoLimit);
        QVERIFY(r.isCancelled());
    }
};

QTEST_GUILESS_MAIN(TestDecompress)
#include "tst_decompress.moc"
