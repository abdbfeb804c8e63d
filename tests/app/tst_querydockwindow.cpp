// The Query dock in the main window, on a real Kineto profile: the saved "Longest slices"
// example runs on a worker and a click on its first row selects that slice on the main
// window's timeline (the link app/gui/analysisdocks.cpp makes). The slice's name and duration
// are checked against the row, which SQL read from the store.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "views/query/queryexamples.h"
#include "views/query/querypanel.h"
#include "views/timeline/timelinewidget.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

class TstQueryDockWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
    }

    void exampleRowSelectsSliceOnTimeline()
    {
        const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES "/chrome_json/") +
                             "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace"
                             ".json.gz";
        if (!QFileInfo::exists(path))
            QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
        app::MainWindow window;
        window.setInteractiveErrors(false);
        window.resize(1900, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy shown(&window, &app::MainWindow::traceShown);
        window.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1 || !window.lastError().isEmpty(), 60000);
        QCOMPARE(window.lastError(), QString());

        QDockWidget *dock = nullptr;
        for (QDockWidget *d : window.analysisDocks()->docks()) {
            if (d->objectName() == QStringLiteral("QueryDock"))
                dock = d;
        }
        QVERIFY(dock);
        dock->raise();
        auto *panel = qobject_cast<views::QueryPanel *>(
            window.analysisDocks()->panel(QStringLiteral("QueryDock")));
        QVERIFY(panel);
        QTRY_VERIFY(panel->isEnabled());
        QString longest;
        for (const views::QueryExample &e : views::queryExamples()) {
            if (e.title == QStringLiteral("Longest slices"))
                longest = e.sql;
        }
        QVERIFY(!longest.isEmpty());
        panel->editor()->setPlainText(longest);
        QSignalSpy finished(panel, &views::QueryPanel::queryFinished);
        panel->editor()->setFocus();
        QTest::keyClick(panel->editor(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(finished.wait(30000));
        QTableView *table = panel->resultView();
        QCOMPARE(table->model()->rowCount(), 20);
        QVERIFY(!table->wordWrap());
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
        // The track column names the track, not its bare id.
        bool trackIsNumber = true;
        const QString track = table->model()->index(0, 3).data().toString();
        track.toLongLong(&trackIsNumber);
        QVERIFY2(!track.isEmpty() && !trackIsNumber, qPrintable(track));

        const QModelIndex first = table->model()->index(0, 1);
        const QString name = first.data().toString();
        const double durUs = table->model()->index(0, 2).data(Qt::UserRole).toDouble();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
        const auto selected = window.timeline()->state()->selectedSlice();
        QVERIFY(selected.has_value());
        QCOMPARE(QString::fromStdString(std::string(window.trace()->name(*selected))), name);
        QCOMPARE(double(window.trace()->duration(*selected)) / 1e6, durUs);
        // The longest slice: nothing on any track lasts longer.
        core::TimePs longestPs = 0;
        for (const core::Track &track : window.trace()->tracks)
            for (const core::Row &row : track.rows)
                for (core::TimePs d : row.duration)
                    longestPs = std::max(longestPs, d);
        QCOMPARE(window.trace()->duration(*selected), longestPs);

        const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
        if (!keep.isEmpty())
            window.grab().save(keep);
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TstQueryDockWindow)
#include "tst_querydockwindow.moc"
