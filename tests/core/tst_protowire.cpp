// WireReader / decodeVarint: hand-encoded bytes with hand-computed values.

#include "core/io/protowire.h"

#include <QtTest>

#include <cstring>
#include <random>
#include <vector>

using namespace tracedesk::core;

namespace {

using Bytes = std::vector<uint8_t>;

bool varint(const Bytes &b, uint64_t *out, size_t *used)
{
    const uint8_t *end = b.data() + b.size();
    const uint8_t *p = decodeVarint(b.data(), end, out);
    if (!p)
        return false;
    *used = size_t(p - b.data());
    return true;
}

} // namespace

class TestProtoWire : public QObject
{
    Q_OBJECT

private slots:
    void varintValues_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<quint64>("value");
        QTest::addColumn<int>("used");
        auto row = [](const char *name, Bytes b, quint64 v, int used) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char *>(b.data()),
                                              qsizetype(b.size()))
                                << v << used;
        };
        row("zero", {0x00}, 0, 1);
        row("one", {0x01}, 1, 1);
        row("127", {0x7f}, 127, 1);
        row("128", {0x80, 0x01}, 128, 2);
        row("300", {0xac, 0x02}, 300, 2);
        row("16383", {0xff, 0x7f}, 16383, 2);
        row("16384", {0x80, 0x80, 0x01}, 16384, 3);
        row("2^32", {0x80, 0x80, 0x80, 0x80, 0x10}, quint64(1) << 32, 5);
        // int64 -1 is written as ten bytes (no zig-zag): nine 0xff then 0x01.
        row("minus one", {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
            ~quint64(0), 10);
        row("int64 min", {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
            quint64(1) << 63, 10);
        row("trailing bytes ignored", {0x05, 0xff, 0xff}, 5, 1);
        // Non-minimal encodings are legal protobuf.
        row("padded zero", {0x80, 0x80, 0x00}, 0, 3);
    }

    void varintValues()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(quint64, value);
        QFETCH(int, used);
        const Bytes b(bytes.begin(), bytes.end());
        uint64_t v = 0;
        size_t n = 0;
        QVERIFY(varint(b, &v, &n));
        QCOMPARE(quint64(v), value);
        QCOMPARE(int(n), used);
    }

    // decodeVarint against the wire format's definition read a byte at a time, on random bytes
    // where every prefix length and every mix of continuation bits occurs: 1 to 10 byte
    // varints, padded ones, varints cut by the end of the input, and runs of more than ten
    // continuation bytes; with 8 bytes or more left the decoder reads them in one load.
    void varintMatchesByteByByteDecoding()
    {
        auto reference = [](const uint8_t *p, const uint8_t *end, uint64_t *out) {
            uint64_t value = 0;
            for (int i = 0; i < 10 && p + i < end; ++i) {
                value |= uint64_t(p[i] & 0x7f) << (7 * i);
                if (p[i] < 0x80) {
                    *out = value;
                    return p + i + 1;
                }
            }
            return static_cast<const uint8_t *>(nullptr);
        };
        std::mt19937_64 random(3);
        int decoded = 0, longForm = 0;
        for (int trial = 0; trial < 200000; ++trial) {
            Bytes b(size_t(random() % 17));
            // A varint of `length` bytes, then anything.
            const size_t length = 1 + random() % 12;
            for (size_t i = 0; i < b.size(); ++i) {
                const uint8_t low = uint8_t(random() & 0x7f);
                b[i] = i + 1 < length ? uint8_t(low | 0x80) : i + 1 == length ? low
                                                                            : uint8_t(random());
            }
            const uint8_t *end = b.data() + b.size();
            uint64_t expected = 0, got = 0;
            const uint8_t *want = reference(b.data(), end, &expected);
            const uint8_t *at = decodeVarint(b.data(), end, &got);
            QCOMPARE(at, want);
            if (want) {
                QCOMPARE(got, expected);
                ++decoded;
                longForm += b.size() >= 8 && want - b.data() > 1;
            }
        }
        QVERIFY(decoded > 50000);
        QVERIFY(longForm > 20000);
    }

    void varintFailures()
    {
        uint64_t v = 0;
        size_t n = 0;
        QVERIFY(!varint({}, &v, &n));
        QVERIFY(!varint({0x80}, &v, &n));
        QVERIFY(!varint({0xff, 0xff, 0xff}, &v, &n));
        // Eleven bytes: longer than any 64-bit value.
        QVERIFY(!varint({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, &v,
                        &n));
    }

    void readsEveryWireType()
    {
        // field 1 varint 150; field 2 fixed64 double 1.5; field 3 "abc"; field 4 fixed32 7.
        Bytes b = {0x08, 0x96, 0x01, 0x11};
        const double d = 1.5;
        uint8_t raw[8];
        std::memcpy(raw, &d, 8);
        b.insert(b.end(), raw, raw + 8);
        b.insert(b.end(), {0x1a, 0x03, 'a', 'b', 'c', 0x25, 0x07, 0x00, 0x00, 0x00});
        WireReader r(b.data(), b.data() + b.size());
        WireField f;
        QVERIFY(r.next(&f));
        QCOMPARE(f.number, 1u);
        QCOMPARE(f.type, WireType::Varint);
        QCOMPARE(f.value, uint64_t(150));
        QCOMPARE(f.at, b.data());
        QVERIFY(r.next(&f));
        QCOMPARE(f.number, 2u);
        QCOMPARE(f.type, WireType::Fixed64);
        QCOMPARE(f.asDouble(), 1.5);
        QVERIFY(r.next(&f));
        QCOMPARE(f.number, 3u);
        QCOMPARE(f.type, WireType::Len);
        QCOMPARE(f.key, 0x1au);   // the tag byte as written
        QCOMPARE(f.key, WireField::keyOf(3, WireType::Len));
        QCOMPARE(f.bytes(), std::string_view("abc"));
        QVERIFY(r.next(&f));
        QCOMPARE(f.number, 4u);
        QCOMPARE(f.type, WireType::Fixed32);
        QCOMPARE(f.value, uint64_t(7));
        QVERIFY(!r.next(&f));
        QVERIFY(!r.failed());
        QVERIFY(r.atEnd());
    }

    void largeFieldNumbers()
    {
        // Field 1000, varint: tag = 8000 = 0xc0 0x3e.
        const Bytes b = {0xc0, 0x3e, 0x01};
        WireReader r(b.data(), b.data() + b.size());
        WireField f;
        QVERIFY(r.next(&f));
        QCOMPARE(f.number, 1000u);
        QCOMPARE(f.key, 8000u);
        QCOMPARE(f.value, uint64_t(1));
    }

    void corruptInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("errorAt");
        auto row = [](const char *name, Bytes b, const char *error, int at) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char *>(b.data()),
                                              qsizetype(b.size()))
                                << QString(error) << at;
        };
        row("truncated tag", {0x80}, "truncated or overlong field tag", 0);
        row("truncated varint value", {0x08, 0x96}, "truncated or overlong varint", 0);
        row("truncated fixed64", {0x09, 1, 2, 3}, "truncated 64-bit value", 0);
        row("truncated fixed32", {0x08, 0x01, 0x0d, 1, 2}, "truncated 32-bit value", 2);
        row("truncated length", {0x0a, 0x80}, "truncated or overlong length", 0);
        row("length past end", {0x0a, 0x05, 'a', 'b'}, "length past the end of the enclosing message",
            0);
        // A length claiming 2 GiB in a tiny buffer.
        row("huge length", {0x0a, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00},
            "length past the end of the enclosing message", 0);
        row("field zero", {0x00, 0x01}, "field number 0", 0);
        row("start group", {0x0b}, "group wire type, which XSpace never uses", 0);
        row("end group", {0x0c}, "group wire type, which XSpace never uses", 0);
        row("wire type 6", {0x0e}, "invalid wire type", 0);
        row("wire type 7", {0x08, 0x00, 0x0f}, "invalid wire type", 2);
    }

    void corruptInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        QFETCH(int, errorAt);
        const auto *data = reinterpret_cast<const uint8_t *>(bytes.constData());
        WireReader r(data, data + bytes.size());
        WireField f;
        int fields = 0;
        while (r.next(&f))
            ++fields;
        QVERIFY(r.failed());
        QCOMPARE(QString(r.error()), error);
        QCOMPARE(int(r.errorAt() - data), errorAt);
        // A failed reader stays failed.
        QVERIFY(!r.next(&f));
        QVERIFY(r.failed());
        QVERIFY(fields <= 1);
    }

    void everyTruncationStopsCleanly()
    {
        // A nested message: field 1 { field 2 varint 300, field 3 "xy" }, then field 4 varint 1.
        const Bytes full = {0x0a, 0x07, 0x10, 0xac, 0x02, 0x1a, 0x02, 'x', 'y', 0x20, 0x01};
        for (size_t n = 0; n < full.size(); ++n) {
            WireReader r(full.data(), full.data() + n);
            WireField f;
            int fields = 0;
            while (r.next(&f)) {
                ++fields;
                if (f.type == WireType::Len) {
                    WireReader inner = WireReader::of(f);
                    WireField g;
                    while (inner.next(&g)) {}
                    QVERIFY(!inner.failed());
                }
            }
            // Cut inside the first field: error. Cut right after it (n == 9): clean end.
            QCOMPARE(r.failed(), n != 0 && n != 9);
            QCOMPARE(fields, n >= 9 ? 1 : 0);
        }
    }

    void packedAndUnpackedRepeated()
    {
        std::vector<uint64_t> seen;
        auto collect = [&](uint64_t v) { seen.push_back(v); };
        // Packed: field 6, Len 4: 1, 300, 2.
        const Bytes packed = {0x32, 0x04, 0x01, 0xac, 0x02, 0x02};
        WireReader r(packed.data(), packed.data() + packed.size());
        WireField f;
        QVERIFY(r.next(&f));
        QVERIFY(forEachVarint(f, collect));
        QCOMPARE(seen, (std::vector<uint64_t>{1, 300, 2}));
        // Unpacked: one varint field per value.
        seen.clear();
        const Bytes unpacked = {0x30, 0x01, 0x30, 0xac, 0x02};
        WireReader u(unpacked.data(), unpacked.data() + unpacked.size());
        while (u.next(&f))
            QVERIFY(forEachVarint(f, collect));
        QCOMPARE(seen, (std::vector<uint64_t>{1, 300}));
        // A packed payload that ends inside a varint is rejected.
        const Bytes bad = {0x32, 0x02, 0x01, 0x80};
        WireReader b(bad.data(), bad.data() + bad.size());
        QVERIFY(b.next(&f));
        QVERIFY(!forEachVarint(f, collect));
        // Fixed32 is not a varint encoding.
        WireField fixed;
        fixed.type = WireType::Fixed32;
        QVERIFY(!forEachVarint(fixed, collect));
    }

    void semanticFailureKeepsFirstError()
    {
        const Bytes b = {0x08, 0x01, 0x08, 0x02};
        WireReader r(b.data(), b.data() + b.size());
        WireField f;
        QVERIFY(r.next(&f));
        QVERIFY(!r.fail("first", b.data()));
        QVERIFY(!r.fail("second", b.data() + 2));
        QCOMPARE(QString(r.error()), QString("first"));
        QVERIFY(!r.next(&f));
    }
};

QTEST_GUILESS_MAIN(TestProtoWire)
#include "tst_protowire.moc"
