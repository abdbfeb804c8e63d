// `tracedesk --measure OUT.json PATH`: the window opens a generated profile and writes what
// it measured; a failed load writes nothing; the command line takes the option only with one
// path.

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/measurerun.h"
#include "app/gui/startup.h"
#include "core/generate/generator.h"

#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

class TstMeasureRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_temp.isValid());
    }

    void measuresAGeneratedProfile()
    {
        core::GeneratorOptions generate;
        generate.events = 20000;
        const std::string path = m_temp.filePath(QStringLiteral("m.xplane.pb")).toStdString();
        auto stats = core::generateTrace(generate, path);
        QVERIFY(stats.ok());

        app::MainWindow window;
        core::LoadOptions options;
        options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
        window.loadController()->setOptions(options);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString out = m_temp.filePath(QStringLiteral("measure.json"));
        auto *measure = new app::MeasureRun(&window, out);
        QSignalSpy finished(measure, &app::MeasureRun::finished);
        measure->start();
        window.openPath(QString::fromStdString(path));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 180000);
        QCOMPARE(finished.front().front().toBool(), true);

        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
        // Counted by the generator while it wrote the file.
        QCOMPARE(qint64(o.value("events").toDouble()), qint64(stats.value().events));
        QVERIFY(o.value("load_ms").toDouble() > 0);
        QVERIFY(o.value("first_paint_ms").toDouble() > 0);
        QVERIFY(o.value("lod_index_ready_ms").toDouble() >= 0);
        const QJsonArray zooms = o.value("zoom_paint_ms").toArray();
        QCOMPARE(zooms.size(), app::MeasureRun::kZoomSteps);
        for (const QJsonValue &z : zooms)
            QVERIFY(z.toDouble() > 0);
        // Every dock of the window, each with its result (none waited out its timeout).
        const QJsonArray panels = o.value("panels").toArray();
        QCOMPARE(size_t(panels.size()), window.analysisDocks()->docks().size());
        int applying = 0;
        for (size_t i = 0; i < size_t(panels.size()); ++i) {
            const QJsonObject p = panels[qsizetype(i)].toObject();
            QCOMPARE(p.value("dock").toString(),
                     window.analysisDocks()->docks()[i]->objectName());
            QVERIFY2(!p.value("timed_out").toBool(), qPrintable(p.value("dock").toString()));
            QVERIFY(p.value("ms").toDouble() >= 0);
            applying += p.value("applies").toBool();
        }
        QVERIFY(applying > 5); // a TensorFlow-like GPU profile: overview, op profile, ...
        const double store = o.value("store_bytes").toDouble();
        QVERIFY(store > 0);
        QVERIFY(o.value("rss_steady_bytes").toDouble() > store);
        QVERIFY(o.value("rss_after_zooms_bytes").toDouble() > store);
        QVERIFY(o.value("rss_peak_bytes").toDouble() >= o.value("rss_after_zooms_bytes").toDouble());
        QVERIFY(o.value("rss_peak_bytes").toDouble() >= o.value("rss_steady_bytes").toDouble());
        QCOMPARE(o.value("rss_peak_over_store").toDouble(),
                 o.value("rss_peak_bytes").toDouble() / store);
        // Where the steady RSS is: the file-mapped part is part of it; the allocator's live
        // blocks hold at least the store (read from the cache into the heap).
        QVERIFY(o.contains("rss_steady_file_bytes"));
        QVERIFY(o.value("rss_steady_file_bytes").toDouble() <
                o.value("rss_steady_bytes").toDouble());
#ifdef __GLIBC__
        QVERIFY(o.value("heap_in_use_bytes").toDouble() > store);
        for (const QJsonValue &p : panels)
            QVERIFY(p.toObject().value("heap_in_use_bytes").toDouble() > store);
#endif
    }

    void failedLoadWritesNothing()
    {
        app::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString out = m_temp.filePath(QStringLiteral("never.json"));
        auto *measure = new app::MeasureRun(&window, out);
        QSignalSpy finished(measure, &app::MeasureRun::finished);
        measure->start();
        window.openPath(m_temp.filePath(QStringLiteral("missing.xplane.pb")));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
        QCOMPARE(finished.front().front().toBool(), false);
        QVERIFY(!QFile::exists(out));
    }

    void commandLine()
    {
        auto o = app::parseCommandLine({"tracedesk", "--measure", "m.json", "run.pb"});
        QVERIFY(!o.exitNow);
        QCOMPARE(o.measurePath, QStringLiteral("m.json"));
        for (const QStringList &bad :
             {QStringList{"tracedesk", "--measure", "m.json"},
              QStringList{"tracedesk", "--measure", "m.json", "a.pb", "b.pb"},
              QStringList{"tracedesk", "--measure", "m.json", "--screenshot", "s.png", "a.pb"}}) {
            o = app::parseCommandLine(bad);
            QVERIFY(o.exitNow);
            QCOMPARE(o.exitCode, 2);
            QVERIFY(o.message.contains(QStringLiteral("--measure")));
        }
    }

private:
    QTemporaryDir m_temp;
};

QTEST_MAIN(TstMeasureRun)
#include "tst_measurerun.moc"
