// decodeStat: every XStat shape read as the protobuf wire format defines it, whether the bytes
// take the short path for the common shape (metadata_id then one integer) or the field loop.

#include "core/io/xspacestats.h"

#include <QtTest>

#include <random>
#include <vector>

using namespace tracedesk::core;
using namespace tracedesk::core::xspace;

namespace {

using Bytes = std::vector<uint8_t>;

void putVarint(Bytes &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(uint8_t(v | 0x80));
        v >>= 7;
    }
    out.push_back(uint8_t(v));
}

// A varint of `value` padded to `length` bytes with continuation bytes, as the wire allows.
void putPaddedVarint(Bytes &out, uint64_t value, int length)
{
    for (int i = 0; i < length - 1; ++i) {
        out.push_back(uint8_t((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(uint8_t(value & 0x7f));
}

struct Decoded
{
    bool ok = false;
    StatValue value;
    Bytes field;   // what a string value points into
};

Decoded decode(const Bytes &payload)
{
    Decoded d;
    Bytes &field = d.field;
    field = {0x22};   // XEvent.stats: field 4, length-delimited
    putVarint(field, payload.size());
    field.insert(field.end(), payload.begin(), payload.end());
    WireReader parent(field.data(), field.data() + field.size());
    WireField f;
    if (!parent.next(&f))
        return d;
    d.ok = decodeStat(f, &d.value, parent);
    return d;
}

} // namespace

class TstXSpaceStats : public QObject
{
    Q_OBJECT

private slots:
    // Random stats of the common shape, each also written with a trailing unknown field (which
    // the reader skips) so only the field loop reads it: both readings must be the expected one.
    void integerStatsMatchTheFieldLoop()
    {
        std::mt19937_64 random(11);
        static constexpr struct
        {
            uint8_t tag;
            StatValue::Type type;
        } kValues[] = {{0x18, StatValue::Type::UInt},
                       {0x20, StatValue::Type::Int},
                       {0x38, StatValue::Type::Ref}};
        for (int trial = 0; trial < 20000; ++trial) {
            const uint64_t id = random() >> (random() % 64);
            const uint64_t value = trial % 7 == 0 ? ~uint64_t(0) : random() >> (random() % 64);
            const auto &kind = kValues[trial % 3];
            Bytes payload{0x08};
            if (trial % 5 == 0)
                putPaddedVarint(payload, id, 10);   // the longest a varint may be
            else
                putVarint(payload, id);
            payload.push_back(kind.tag);
            putVarint(payload, value);
            Bytes longer = payload;
            longer.insert(longer.end(), {0x48, 0x01});   // field 9, varint 1: unknown
            for (const Bytes &bytes : {payload, longer}) {
                const Decoded d = decode(bytes);
                QVERIFY(d.ok);
                QCOMPARE(d.value.metadataId, int64_t(id));
                QCOMPARE(d.value.type, kind.type);
                QCOMPARE(d.value.u, value);
            }
        }
    }

    // Shapes next to the common one: each read by the field loop, with the last value winning.
    void otherShapes()
    {
        // The value before the id.
        Decoded d = decode({0x20, 0x05, 0x08, 0x03});
        QVERIFY(d.ok);
        QCOMPARE(d.value.metadataId, int64_t(3));
        QCOMPARE(d.value.type, StatValue::Type::Int);
        QCOMPARE(d.value.u, uint64_t(5));
        // Two values: the last wins (a oneof).
        d = decode({0x08, 0x03, 0x18, 0x05, 0x20, 0x06});
        QVERIFY(d.ok);
        QCOMPARE(d.value.type, StatValue::Type::Int);
        QCOMPARE(d.value.u, uint64_t(6));
        // A string value.
        d = decode({0x08, 0x03, 0x2a, 0x02, 'h', 'i'});
        QVERIFY(d.ok);
        QCOMPARE(d.value.type, StatValue::Type::Str);
        QCOMPARE(d.value.s, std::string_view("hi"));
        // A double value.
        Bytes withDouble{0x08, 0x03, 0x11};
        const double half = 0.5;
        uint8_t raw[8];
        std::memcpy(raw, &half, 8);
        withDouble.insert(withDouble.end(), raw, raw + 8);
        d = decode(withDouble);
        QVERIFY(d.ok);
        QCOMPARE(d.value.type, StatValue::Type::Double);
        QCOMPARE(d.value.d, 0.5);
        // An id alone.
        d = decode({0x08, 0x03, 0x08, 0x04});
        QVERIFY(d.ok);
        QCOMPARE(d.value.metadataId, int64_t(4));
        QCOMPARE(d.value.type, StatValue::Type::None);
    }

    void corruptStatsFail()
    {
        // The value's varint runs to the end without a last byte.
        QVERIFY(!decode({0x08, 0x03, 0x18, 0x85}).ok);
        // An integer value with the wrong wire type (length-delimited field 3).
        QVERIFY(!decode({0x08, 0x03, 0x1a, 0x01, 0x00}).ok);
        // An id varint of eleven bytes.
        Bytes overlong{0x08};
        for (int i = 0; i < 10; ++i)
            overlong.push_back(0x80);
        overlong.insert(overlong.end(), {0x01, 0x18, 0x01});
        QVERIFY(!decode(overlong).ok);
    }
};

QTEST_GUILESS_MAIN(TstXSpaceStats)
#include "tst_xspacestats.moc"
