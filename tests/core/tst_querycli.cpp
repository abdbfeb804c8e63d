// `tracedesk-cli query`: CSV and JSON output parse back to the hand-counted rows of a tiny trace
// written by the test; bad SQL exits 1 with SQLite's message; --schema lists every table.

#include "support/clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// Two "a" slices (10 us, 30 us), one "b,c" slice (5 us) whose name needs CSV quoting.
const char *const kTrace = R"json({"traceEvents":[
{"ph":"X","cat":"t","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"X","cat":"t","name":"a","pid":1,"tid":1,"ts":20,"dur":30},
{"ph":"X","cat":"t","name":"b,c","pid":1,"tid":2,"ts":5,"dur":5}
]})json";

const char *const kSql = "SELECT name, count(*) AS n, sum(dur) AS total FROM slices "
                         "GROUP BY name ORDER BY name";

// Splits one CSV line (RFC 4180 quoting).
QStringList csvFields(const QString &line)
{
    QStringList out;
    QString field;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out << field;
            field.clear();
        } else {
            field += c;
        }
    }
    out << field;
    return out;
}

} // namespace

class TestQueryCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = m_dir.filePath("tiny.trace.json");
        QFile f(m_file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTrace);
    }

    void csvOutput()
    {
        const auto r = clitest::runCli({"query", m_file, kSql, "--csv", "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(csvFields(lines[0]), QStringList({"name", "n", "total"}));
        QCOMPARE(csvFields(lines[1]), QStringList({"a", "2", QString::number(40LL * 1000000)}));
        QCOMPARE(csvFields(lines[2]), QStringList({"b,c", "1", QString::number(5LL * 1000000)}));
    }

    void jsonOutput()
    {
        const auto r = clitest::runCli({"query", m_file, kSql, "--json", "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(o["columns"].toArray(), QJsonArray({"name", "n", "total"}));
        const QJsonArray rows = o["rows"].toArray();
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].toArray()[0].toString(), QString("a"));
        QCOMPARE(rows[0].toArray()[1].toInteger(), 2);
        QCOMPARE(rows[0].toArray()[2].toInteger(), 40LL * 1000000);
        QCOMPARE(rows[1].toArray()[0].toString(), QString("b,c"));
        // NULL cells are JSON null.
        const auto n = clitest::runCli(
            {"query", m_file, "SELECT NULL AS x, 1.5 AS y", "--json", "--no-cache"});
        const QJsonObject no = QJsonDocument::fromJson(n.out).object();
        QVERIFY(no["rows"].toArray()[0].toArray()[0].isNull());
        QCOMPARE(no["rows"].toArray()[0].toArray()[1].toDouble(), 1.5);
    }

    void badSqlAndUsage()
    {
        const auto r = clitest::runCli({"query", m_file, "SELEC 1", "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("near \"SELEC\": syntax error"), r.err.constData());
        QCOMPARE(clitest::runCli({"query", m_file}).exitCode, 2);
        QCOMPARE(clitest::runCli({"query", m_file, "SELECT 1", "--csv", "--json"}).exitCode, 2);
    }

    void schema()
    {
        const auto r = clitest::runCli({"query", "--schema"});
        QCOMPARE(r.exitCode, 0);
        for (const char *table : {"planes", "tracks", "slices", "args", "flows", "counters",
                                  "steps", "kernels", "op_stats"})
            QVERIFY2(r.out.contains(QByteArray("\n") + table + ": "), table);
    }

private:
    QTemporaryDir m_dir;
    QString m_file;
};

QTEST_GUILESS_MAIN(TestQueryCli)
#include "tst_querycli.moc"
