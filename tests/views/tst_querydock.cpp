// The Query dock (views/query): a query typed and run with Ctrl+Enter fills the table with the
// hand-counted rows of a small trace; a click on a row selects that slice on the timeline;
// headers sort numbers as numbers; bad SQL shows SQLite's message; history, CSV export and
// cancelling a runaway query work.

#include "core/io/chromejsonreader.h"
#include "core/sql/sqlresult.h"
#include "views/query/querypanel.h"
#include "views/query/queryresultmodel.h"
#include "views/timeline/timelinewidget.h"

#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

namespace {

// 3 x "mm" (10, 30, 20 us), 2 x "relu" (5, 7 us) on one thread; nothing nested.
const char *const kTrace = R"json({"traceEvents":[
{"ph":"X","cat":"op","name":"mm","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"X","cat":"op","name":"relu","pid":1,"tid":1,"ts":20,"dur":5},
{"ph":"X","cat":"op","name":"mm","pid":1,"tid":1,"ts":40,"dur":30},
{"ph":"X","cat":"op","name":"relu","pid":1,"tid":1,"ts":100,"dur":7},
{"ph":"X","cat":"op","name":"mm","pid":1,"tid":1,"ts":200,"dur":20}
]})json";

core::TracePtr loadTrace()
{
    auto r = core::readChromeJsonBytes("query.trace.json", kTrace, std::strlen(kTrace), nullptr,
                                       core::LoadOptions{});
    return r ? core::TracePtr(r.value()) : nullptr;
}

} // namespace

class TestQueryDock : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void typedQueryFillsTable();
    void clickSelectsSliceOnTimeline();
    void headerSortsNumbers();
    void badSqlShowsSqliteMessage();
    void historyAndCsvExport();
    void cancelStopsRunawayQuery();

private:
    void type(const QString &sql);
    bool runAndWait();

    core::TracePtr m_trace;
    std::unique_ptr<QSplitter> m_window;
    views::QueryPanel *m_panel = nullptr;
    views::TimelineWidget *m_timeline = nullptr;
};

void TestQueryDock::init()
{
    m_trace = loadTrace();
    QVERIFY(m_trace);
    m_window = std::make_unique<QSplitter>(Qt::Vertical);
    m_timeline = new views::TimelineWidget;
    m_panel = new views::QueryPanel;
    m_window->addWidget(m_timeline);
    m_window->addWidget(m_panel);
    // The same link the main window makes (app/gui/analysisdocks.cpp).
    connect(m_panel, &views::QueryPanel::sliceActivated, m_timeline,
            &views::TimelineWidget::revealSlice);
    m_timeline->setTrace(m_trace);
    m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(m_trace));
    m_window->resize(1200, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestQueryDock::cleanup()
{
    m_window.reset();
}

void TestQueryDock::type(const QString &sql)
{
    m_panel->editor()->clear();
    m_panel->editor()->setFocus();
    QTest::keyClicks(m_panel->editor(), sql);
}

bool TestQueryDock::runAndWait()
{
    QSignalSpy finished(m_panel, &views::QueryPanel::queryFinished);
    QTest::keyClick(m_panel->editor(), Qt::Key_Return, Qt::ControlModifier);
    return finished.wait(20000);
}

void TestQueryDock::typedQueryFillsTable()
{
    type("SELECT name, count(*) AS n, sum(dur) AS total FROM slices GROUP BY name ORDER BY name");
    QVERIFY(runAndWait());
    QAbstractItemModel *model = m_panel->resultView()->model();
    QCOMPARE(model->columnCount(), 3);
    QCOMPARE(model->headerData(1, Qt::Horizontal).toString(), QString("n"));
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->index(0, 0).data().toString(), QString("mm"));
    QCOMPARE(model->index(0, 1).data().toString(), QString("3"));
    QCOMPARE(model->index(0, 2).data(Qt::UserRole).toLongLong(), (10 + 30 + 20) * 1000000LL);
    QCOMPARE(model->index(1, 0).data().toString(), QString("relu"));
    QCOMPARE(model->index(1, 2).data(Qt::UserRole).toLongLong(), (5 + 7) * 1000000LL);
    QVERIFY(m_panel->statusText().contains("2 row"));

    // A REAL reads in three decimals at most; its tooltip keeps every digit.
    type("SELECT 1921.23456789 AS a, 0.5 AS b, 12.0 AS c, 0.000012345678 AS d");
    QVERIFY(runAndWait());
    QCOMPARE(model->index(0, 0).data().toString(), QString("1921.235"));
    QCOMPARE(model->index(0, 0).data(Qt::ToolTipRole).toString(), QString("1921.23456789"));
    QCOMPARE(model->index(0, 1).data().toString(), QString("0.5"));
    QCOMPARE(model->index(0, 2).data().toString(), QString("12"));
    QCOMPARE(model->index(0, 3).data().toString(), QString("1.23457e-05"));
}

void TestQueryDock::clickSelectsSliceOnTimeline()
{
    type("SELECT id, name, dur FROM slices WHERE name = 'relu' ORDER BY dur DESC");
    QVERIFY(runAndWait());
    QTableView *view = m_panel->resultView();
    QCOMPARE(view->model()->rowCount(), 2);
    // The first row is the 7 us relu, the 4th slice in start order on the only track.
    const QRect cell = view->visualRect(view->model()->index(0, 1));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    const auto selected = m_timeline->state()->selectedSlice();
    QVERIFY(selected.has_value());
    QCOMPARE(std::string(m_trace->name(*selected)), std::string("relu"));
    QCOMPARE(m_trace->duration(*selected), 7 * 1000000LL);
    QCOMPARE(m_trace->start(*selected) - m_trace->begin, 100 * 1000000LL);
    // A result without an id column selects nothing new.
    m_timeline->state()->clearSelection();
    type("SELECT name FROM slices");
    QVERIFY(runAndWait());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      view->visualRect(view->model()->index(0, 0)).center());
    QVERIFY(!m_timeline->state()->selectedSlice().has_value());
}

void TestQueryDock::headerSortsNumbers()
{
    // 7e6 sorts above 30e6 as text; numerically it is below.
    type("SELECT dur FROM slices");
    QVERIFY(runAndWait());
    QTableView *view = m_panel->resultView();
    QTest::mouseClick(view->horizontalHeader()->viewport(), Qt::LeftButton, {},
                      QPoint(view->horizontalHeader()->sectionViewportPosition(0) + 5, 5));
    QList<qint64> shown;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        shown << view->model()->index(r, 0).data(Qt::UserRole).toLongLong();
    QList<qint64> sorted = shown;
    std::sort(sorted.begin(), sorted.end());
    if (shown != sorted)
        std::reverse(sorted.begin(), sorted.end());
    QCOMPARE(shown, sorted);
    QCOMPARE(shown.size(), 5);
}

void TestQueryDock::badSqlShowsSqliteMessage()
{
    type("SELECT nope FROM slices");
    QVERIFY(runAndWait());
    QVERIFY2(m_panel->statusText().contains("no such column: nope"),
             qPrintable(m_panel->statusText()));
    type("SELEC 1");
    QVERIFY(runAndWait());
    QVERIFY2(m_panel->statusText().contains("near \"SELEC\": syntax error"),
             qPrintable(m_panel->statusText()));
}

void TestQueryDock::historyAndCsvExport()
{
    type("SELECT 1 AS a");
    QVERIFY(runAndWait());
    type("SELECT name, dur FROM slices WHERE name = 'mm' ORDER BY ts");
    QVERIFY(runAndWait());
    QCOMPARE(m_panel->history().size(), 2);
    QTest::keyClick(m_panel->editor(), Qt::Key_Up, Qt::ControlModifier);
    QTest::keyClick(m_panel->editor(), Qt::Key_Up, Qt::ControlModifier);
    QCOMPARE(m_panel->editor()->toPlainText(), QString("SELECT 1 AS a"));
    QTest::keyClick(m_panel->editor(), Qt::Key_Down, Qt::ControlModifier);
    QVERIFY(m_panel->editor()->toPlainText().startsWith("SELECT name, dur"));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("out.csv");
    QVERIFY(m_panel->exportCsv(path));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0], QByteArray("name,dur"));
    QCOMPARE(lines[1], QByteArray("mm,10000000"));
    QCOMPARE(lines[2], QByteArray("mm,30000000"));
    QCOMPARE(lines[3], QByteArray("mm,20000000"));
}

void TestQueryDock::cancelStopsRunawayQuery()
{
    type("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
         "SELECT count(*) FROM n");
    QSignalSpy finished(m_panel, &views::QueryPanel::queryFinished);
    QTest::keyClick(m_panel->editor(), Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(m_panel->isRunning());
    auto *cancel = m_panel->findChild<QPushButton *>("queryCancel");
    QVERIFY(cancel && cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QCOMPARE(finished.size(), 1);
    QVERIFY(!m_panel->isRunning());
    QVERIFY(m_panel->statusText().contains("Cancelled"));
    // The panel runs again afterwards.
    type("SELECT count(*) FROM slices");
    QVERIFY(runAndWait());
    QCOMPARE(m_panel->resultView()->model()->index(0, 0).data().toString(), QString("5"));
}

QTEST_MAIN(TestQueryDock)
#include "tst_querydock.moc"
