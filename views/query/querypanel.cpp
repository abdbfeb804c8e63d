#include "views/query/querypanel.h"

#include "core/sql/sqlsession.h"
#include "views/query/queryexamples.h"
#include "views/query/queryresultmodel.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace {

constexpr int kHistoryLimit = 50;

using RunResult = core::Result<core::sql::QueryResult>;

} // namespace

QueryPanel::QueryPanel(QWidget *parent)
    : QWidget(parent)
    , m_editor(new QPlainTextEdit)
    , m_examples(new QComboBox)
    , m_historyBox(new QComboBox)
    , m_run(new QPushButton(tr("Run")))
    , m_cancel(new QPushButton(tr("Cancel")))
    , m_export(new QPushButton(tr("Export CSV…")))
    , m_status(new QLabel)
    , m_table(new QTableView)
    , m_model(new QueryResultModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_editor->setObjectName(QStringLiteral("queryEditor"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlaceholderText(
        tr("SELECT name, count(*), sum(dur) / 1e6 AS total_us FROM slices GROUP BY name "
           "ORDER BY total_us DESC  — Ctrl+Enter runs; times are picoseconds"));
    m_editor->setTabChangesFocus(true);
    m_editor->installEventFilter(this);
    m_editor->setPlainText(queryExamples().front().sql);

    m_examples->setObjectName(QStringLiteral("queryExamples"));
    m_examples->addItem(tr("Examples…"));
    for (const QueryExample &e : queryExamples())
        m_examples->addItem(e.title, e.sql);
    connect(m_examples, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            m_editor->setPlainText(m_examples->itemData(index).toString());
        m_examples->setCurrentIndex(0);
    });
    m_historyBox->setObjectName(QStringLiteral("queryHistory"));
    m_historyBox->addItem(tr("History…"));
    m_historyBox->setMinimumContentsLength(24);
    m_historyBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    connect(m_historyBox, &QComboBox::activated, this, [this](int index) {
        if (index > 0 && index <= m_history.size()) {
            m_historyPos = index - 1;
            m_editor->setPlainText(m_history[m_historyPos]);
        }
        m_historyBox->setCurrentIndex(0);
    });

    m_run->setObjectName(QStringLiteral("queryRun"));
    m_run->setToolTip(tr("Run the query (Ctrl+Enter)"));
    m_cancel->setObjectName(QStringLiteral("queryCancel"));
    m_cancel->setEnabled(false);
    m_export->setObjectName(QStringLiteral("queryExport"));
    m_export->setEnabled(false);
    connect(m_run, &QPushButton::clicked, this, &QueryPanel::runQuery);
    connect(m_cancel, &QPushButton::clicked, this, &QueryPanel::cancelQuery);
    connect(m_export, &QPushButton::clicked, this, &QueryPanel::chooseExportFile);

    m_status->setObjectName(QStringLiteral("queryStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_table->setObjectName(QStringLiteral("queryResults"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // keep SQL's order until a header click
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    // A long kernel name stays one line, elided in the middle ("void cutla…Params)") with the
    // whole value in its tooltip; word wrap left only its first word, "void ...".
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    connect(m_table, &QAbstractItemView::clicked, this, &QueryPanel::activateRow);
    connect(m_table, &QAbstractItemView::activated, this, &QueryPanel::activateRow);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_examples);
    buttons->addWidget(m_historyBox, 1);
    buttons->addWidget(m_export);
    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_editor);
    topLayout->addLayout(buttons);
    topLayout->addWidget(m_status);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);
    m_status->setText(tr("No trace loaded."));
    setEnabled(false);
}

QueryPanel::~QueryPanel() = default;

void QueryPanel::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_job.stop();
    setRunning(false);
    m_cache = std::move(cache);
    m_ids = m_cache ? std::make_unique<core::sql::SliceIds>(m_cache->trace()) : nullptr;
    m_model->setResult({});
    m_export->setEnabled(false);
    setEnabled(m_cache != nullptr);
    m_status->setText(m_cache ? tr("Tables: planes, tracks, slices, args, flows, counters, "
                                   "steps, kernels, op_stats (tracedesk-cli query --schema).")
                              : tr("No trace loaded."));
}

void QueryPanel::runQuery()
{
    const QString sql = m_editor->toPlainText().trimmed();
    if (!m_cache || sql.isEmpty())
        return;
    addToHistory(sql);
    setRunning(true);
    m_status->setText(tr("Running…"));
    m_job.run<RunResult>(
        this,
        [cache = m_cache, sql = sql.toStdString()](core::CancelToken token) -> RunResult {
            auto session = core::sql::SqlSession::open(cache->tracePtr(), cache);
            if (!session)
                return session.error();
            core::sql::SqlRunOptions options;
            options.rowLimit = kRowLimit;
            options.cancel = token;
            return session.value()->run(sql, options);
        },
        [this](RunResult result) {
            setRunning(false);
            if (!result) {
                m_status->setText(tr("Error: %1").arg(QString::fromStdString(result.message())));
                m_status->setStyleSheet(QStringLiteral("color: #c62828;"));
                emit queryFinished();
                return;
            }
            core::sql::QueryResult r = std::move(result).value();
            const size_t rows = r.rows.size();
            const bool truncated = r.truncated;
            const double seconds = r.seconds;
            m_table->sortByColumn(-1, Qt::AscendingOrder);
            m_model->setResult(std::move(r));
            m_table->resizeColumnsToContents();
            for (int c = 0; c < m_model->columnCount(); ++c)
                m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 480));
            m_export->setEnabled(m_model->columnCount() > 0);
            QString text =
                tr("%n row(s) in %1 ms", nullptr, int(rows)).arg(seconds * 1e3, 0, 'f', 1);
            if (truncated)
                text += tr(" — only the first %1 rows are kept").arg(kRowLimit);
            if (m_model->sliceIdColumn() >= 0)
                text += tr(" — click a row to show its slice on the timeline");
            m_status->setText(text);
            m_status->setStyleSheet({});
            emit queryFinished();
        });
}

void QueryPanel::cancelQuery()
{
    if (!m_running)
        return;
    m_job.stop();
    setRunning(false);
    m_status->setText(tr("Cancelled."));
    emit queryFinished();
}

void QueryPanel::setRunning(bool running)
{
    m_running = running;
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    if (running)
        m_status->setStyleSheet({});
}

QString QueryPanel::statusText() const
{
    return m_status->text();
}

bool QueryPanel::exportCsv(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(m_model->toCsv()) < 0) {
        m_status->setText(tr("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_status->setText(tr("Wrote %n row(s) to %1", nullptr, m_model->rowCount()).arg(path));
    return true;
}

void QueryPanel::chooseExportFile()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export query result"), QStringLiteral("query.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void QueryPanel::activateRow(const QModelIndex &proxyIndex)
{
    const int column = m_model->sliceIdColumn();
    if (!proxyIndex.isValid() || column < 0 || !m_ids)
        return;
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    const auto id = m_model->integerAt(source.row(), column);
    if (!id)
        return;
    if (const auto slice = m_ids->refOf(*id))
        emit sliceActivated(*slice);
}

void QueryPanel::addToHistory(const QString &sql)
{
    m_history.removeAll(sql);
    m_history.prepend(sql);
    while (m_history.size() > kHistoryLimit)
        m_history.removeLast();
    m_historyPos = -1;
    m_historyBox->clear();
    m_historyBox->addItem(tr("History…"));
    for (const QString &h : m_history)
        m_historyBox->addItem(h.simplified().left(80), h);
}

void QueryPanel::stepHistory(int direction)
{
    if (m_history.isEmpty())
        return;
    // direction +1: older, -1: newer.
    m_historyPos = std::clamp(m_historyPos + direction, 0, int(m_history.size()) - 1);
    m_editor->setPlainText(m_history[m_historyPos]);
}

bool QueryPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_editor && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        const bool ctrl = key->modifiers() & Qt::ControlModifier;
        if (ctrl && (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter)) {
            runQuery();
            return true;
        }
        if (ctrl && key->key() == Qt::Key_Up) {
            stepHistory(+1);
            return true;
        }
        if (ctrl && key->key() == Qt::Key_Down) {
            stepHistory(-1);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace tracedesk::views
