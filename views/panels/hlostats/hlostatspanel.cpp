#include "views/panels/hlostats/hlostatspanel.h"

#include "core/analysis/hlosourcelines.h"

#include "views/common/namecolumn.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/common/xlatoolchoices.h"
#include "views/panels/hlostats/hlostatsmodel.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/opstats/tablecsv.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <map>
#include <utility>
#include <set>

namespace tracedesk::views {

using namespace core::analysis;

HloStatsPanel::HloStatsPanel(QWidget *parent) : QWidget(parent)
{
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by op, op text, framework op or source"));
    m_filter->setClearButtonEnabled(true);
    m_category = new QComboBox(this);
    m_category->setToolTip(tr("Only ops of this HLO category"));
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_boundBy = new QComboBox(this);
    m_boundBy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_boundBy->setToolTip(tr("Only ops bound by this resource"));
    addBoundByChoices(m_boundBy);
    m_bySource = new QCheckBox(tr("Group by source line"), this);
    m_bySource->setToolTip(tr("One row per Python source line, summing the ops it produced"));
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_export->setEnabled(false);
    m_status = new QLabel(tr("No profile"), this);
    m_status->setWordWrap(true);

    m_model = new HloStatsModel(this);
    m_proxy = new HloStatsFilter(m_model, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->sortByColumn(HloStatsModel::SelfUs, Qt::DescendingOrder);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(90);
    m_table->setColumnWidth(HloStatsModel::Rank, 50);
    m_table->setColumnWidth(HloStatsModel::Program, 160);
    m_table->setColumnWidth(HloStatsModel::Category, 120);
    m_table->setColumnWidth(HloStatsModel::Expression, 260);
    m_table->setColumnWidth(HloStatsModel::FrameworkOp, 200);
    m_table->setColumnWidth(HloStatsModel::Source, 260);
    giveNameColumnTheRoom(m_table, HloStatsModel::Op, 240);

    m_byCategory = new PieChartView(tr("Self time by HLO category"), this);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_byCategory);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    m_empty = new QLabel(this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(split);
    m_stack->addWidget(m_empty);
    m_content = split;

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_category);
    bar->addWidget(m_boundBy);
    bar->addWidget(m_bySource);
    bar->addWidget(m_export);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_stack, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_category, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setCategory(m_category->currentData().toString()); });
    connect(m_boundBy, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setBoundBy(m_boundBy->currentData().toString()); });
    connect(m_bySource, &QCheckBox::toggled, this, &HloStatsPanel::showRows);
    connect(m_export, &QPushButton::clicked, this, [this] {
        exportTableCsv(this, *m_proxy,
                       m_bySource->isChecked() ? QStringLiteral("hlo_stats_by_source.csv")
                                               : QStringLiteral("hlo_stats.csv"));
    });
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(HloStatsModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
    auto requestGraph = [this](const QModelIndex &index) {
        const QString name = index.data(HloStatsModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit graphRequested(
                name, index.siblingAtColumn(HloStatsModel::Program).data().toString());
    };
    connect(m_table, &QAbstractItemView::doubleClicked, this, requestGraph);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this, requestGraph](QPoint at) {
        const QModelIndex index = m_table->indexAt(at);
        if (!index.isValid() || index.data(HloStatsModel::kOpNameRole).toString().isEmpty())
            return;
        QMenu menu(this);
        menu.addAction(tr("Show in Graph Viewer"), this, [&] { requestGraph(index); });
        menu.addAction(tr("Show on the timeline"), this, [&] {
            emit opActivated(index.data(HloStatsModel::kOpNameRole).toString());
        });
        menu.exec(m_table->viewport()->mapToGlobal(at));
    });
}

HloStatsPanel::~HloStatsPanel() = default;

QString HloStatsPanel::notApplicableReason(const core::Trace &trace)
{
    return xlaToolReason(trace, tr("HLO Op Stats lists XLA (HLO) ops"));
}

void HloStatsPanel::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_stats.reset();
    showRows();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    // A capture without XLA ops says why instead of computing an empty table.
    const QString why = notApplicableReason(m_cache->trace());
    const std::initializer_list<QWidget *> filters{m_filter, m_category, m_boundBy, m_bySource};
    for (QWidget *w : filters)
        w->setEnabled(why.isEmpty());
    if (!why.isEmpty()) {
        m_empty->setText(why);
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No HLO ops"));
        return;
    }
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c] { return hloStats(*c); });
}

QString HloStatsPanel::statusText() const
{
    return m_status->text();
}

bool HloStatsPanel::showsEmptyMessage() const
{
    return m_stack->currentWidget() == m_empty;
}

void HloStatsPanel::showStats(std::shared_ptr<const HloStats> stats)
{
    m_stats = std::move(stats);
    std::set<QString> categories;
    for (const HloStatsRow &r : m_stats->rows)
        categories.insert(QString::fromStdString(r.category));
    setCategoryChoices(m_category, categories);
    m_proxy->setCategory(m_category->currentData().toString());
    showRows();
    if (!m_pendingOp.isEmpty())
        selectOp(std::exchange(m_pendingOp, QString()));
    emit computed();
}

void HloStatsPanel::showRows()
{
    if (!m_stats) {
        m_model->setRows({}, false);
        m_byCategory->setValues({});
        m_export->setEnabled(false);
        m_stack->setCurrentWidget(m_content);
        return;
    }
    const bool bySource = m_bySource->isChecked();
    m_model->setRows(bySource ? groupHloStatsBySource(*m_stats).rows : m_stats->rows, bySource);
    // Number columns as wide as their numbers (the first rows decide: the table is sorted by
    // self time, so they hold the widest times).
    m_table->horizontalHeader()->setResizeContentsPrecision(200);
    for (int c = HloStatsModel::Occurrences; c <= HloStatsModel::Intensity; ++c)
        m_table->resizeColumnToContents(c);
    std::map<QString, double> byCategory;
    for (const HloStatsRow &r : m_stats->rows)
        byCategory[QString::fromStdString(r.category)] += r.totalSelfTimeUs;
    m_byCategory->setValues({byCategory.begin(), byCategory.end()});
    const size_t n = m_stats->rows.size();
    m_export->setEnabled(n > 0);
    if (n == 0) {
        m_empty->setText(tr("This profile has no XLA (HLO) ops on a device.\nHLO Op Stats "
                            "reads the XLA Ops lines of TPU planes and the HLO ops of GPU "
                            "kernels (hlo_op, program_id)."));
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No HLO ops"));
        return;
    }
    m_stack->setCurrentWidget(m_content);
    QString status = bySource ? tr("%L1 HLO ops on %L2 source lines")
                                    .arg(n)
                                    .arg(m_model->rowCount())
                              : tr("%L1 HLO ops").arg(n);
    if (m_stats->source != "profile")
        status += tr(" - recorded by XProf (%1)").arg(QString::fromStdString(m_stats->source));
    if (m_stats->ridgePoint > 0) {
        status += tr(" - peak %L1 GFLOP/s, HBM %L2 GB/s, ridge point %L3 FLOP/byte")
                      .arg(m_stats->peakGigaFlopsPerSecond, 0, 'f', 0)
                      .arg(m_stats->peakHbmGigaBytesPerSecond, 0, 'f', 0)
                      .arg(m_stats->ridgePoint, 0, 'f', 2);
    }
    if (!m_stats->note.empty())
        status += QStringLiteral(" - ") + QString::fromStdString(m_stats->note);
    m_status->setText(status);
}

bool HloStatsPanel::selectOp(const QString &name)
{
    // Still computing (the dock was just raised): selected once the rows arrive.
    m_pendingOp = m_stats ? QString() : name;
    if (!m_stats)
        return false;
    if (m_bySource->isChecked())
        m_bySource->setChecked(false);
    const auto &rows = m_model->rows();
    for (size_t i = 0; i < rows.size(); ++i) {
        if (QString::fromStdString(rows[i].hloOpName) != name)
            continue;
        QModelIndex index = m_proxy->mapFromSource(m_model->index(int(i), 0));
        if (!index.isValid()) {   // filtered out: the user asked for this op, so show it
            m_filter->clear();
            m_category->setCurrentIndex(0);
            m_boundBy->setCurrentIndex(0);
            index = m_proxy->mapFromSource(m_model->index(int(i), 0));
        }
        m_table->selectRow(index.row());
        m_table->scrollTo(index);
        return true;
    }
    return false;
}

} // namespace tracedesk::views
