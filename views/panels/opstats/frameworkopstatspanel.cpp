#include "views/panels/opstats/frameworkopstatspanel.h"

#include "views/common/namecolumn.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/opstats/frameworkopstatsmodel.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchoperatorview.h"
#include "views/timeline/timelinestate.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <map>

namespace tracedesk::views {

using namespace core::analysis;

FrameworkOpStatsPanel::FrameworkOpStatsPanel(QWidget *parent) : QWidget(parent)
{
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by op name or type"));
    m_filter->setClearButtonEnabled(true);
    m_idle = new QCheckBox(tr("Include IDLE"), this);
    m_idle->setChecked(true);
    m_selectionOnly = new QCheckBox(tr("Selection only"), this);
    m_selectionOnly->setToolTip(tr("Only ops that start inside the timeline's selected area"));
    m_selectionOnly->setEnabled(false);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_status = new QLabel(tr("No profile"), this);

    m_model = new FrameworkOpStatsModel(this);
    m_proxy = makeTableProxy(m_model, FrameworkOpStatsModel::kSortRole, -1, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->sortByColumn(FrameworkOpStatsModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultSectionSize(95);
    m_table->setColumnWidth(FrameworkOpStatsModel::Rank, 50);
    m_table->setColumnWidth(FrameworkOpStatsModel::Type, 130);
    giveNameColumnTheRoom(m_table, FrameworkOpStatsModel::Name, 340);

    m_deviceByType = new PieChartView(tr("Device self time by op type"), this);
    m_deviceByOp = new PieChartView(tr("Device self time by op"), this);
    m_hostByType = new PieChartView(tr("Host self time by op type"), this);
    m_hostByOp = new PieChartView(tr("Host self time by op"), this);
    auto *charts = new QWidget(this);
    auto *grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_deviceByType, 0, 0);
    grid->addWidget(m_deviceByOp, 0, 1);
    grid->addWidget(m_hostByType, 1, 0);
    grid->addWidget(m_hostByOp, 1, 1);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_idle);
    bar->addWidget(m_selectionOnly);
    bar->addWidget(m_export);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(charts);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new PyTorchOperatorView(this);
    connect(m_pytorch, &PyTorchOperatorView::opActivated, this,
            &FrameworkOpStatsPanel::opActivated);
    connect(m_pytorch, &PyTorchOperatorView::computed, this, &FrameworkOpStatsPanel::computed);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_idle, &QCheckBox::toggled, this, &FrameworkOpStatsPanel::showResult);
    connect(m_selectionOnly, &QCheckBox::toggled, this, &FrameworkOpStatsPanel::recompute);
    connect(m_export, &QPushButton::clicked, this, &FrameworkOpStatsPanel::exportCsv);
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(FrameworkOpStatsModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
}

FrameworkOpStatsPanel::~FrameworkOpStatsPanel() = default;

void FrameworkOpStatsPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

void FrameworkOpStatsPanel::setTimelineState(TimelineState *state)
{
    followSelection(&m_state, state, m_selectionOnly, this, [this] { recompute(); });
}

QString FrameworkOpStatsPanel::statusText() const
{
    return m_status->text();
}

QList<PieChartView *> FrameworkOpStatsPanel::charts() const
{
    return {m_deviceByType, m_deviceByOp, m_hostByType, m_hostByOp};
}

void FrameworkOpStatsPanel::recompute()
{
    m_compute.cancel();
    m_stats.reset();
    if (!m_cache) {
        m_model->setRows({});
        for (PieChartView *c : charts())
            c->setValues({});
        m_status->setText(tr("No profile"));
        return;
    }
    std::optional<core::analysis::TimeRange> range;
    if (m_selectionOnly->isChecked() && m_state && m_state->area().valid())
        range = core::analysis::TimeRange{m_state->area().time.t0, m_state->area().time.t1};
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr cache = m_cache;
    m_compute.start([cache, range]() -> std::shared_ptr<const FrameworkOpStats> {
        if (!range)
            return frameworkOpStats(*cache);
        return std::make_shared<const FrameworkOpStats>(
            frameworkOpStats(computeOpStats(cache->trace(), range)));
    });
}

void FrameworkOpStatsPanel::showStats(std::shared_ptr<const FrameworkOpStats> stats)
{
    m_stats = std::move(stats);
    showResult();
    emit computed();
}

void FrameworkOpStatsPanel::showResult()
{
    if (!m_stats)
        return;
    const FrameworkOpStatsTable &table = m_idle->isChecked() ? m_stats->withIdle
                                                             : m_stats->withoutIdle;
    m_model->setRows(table.rows);
    std::map<QString, double> devType, devOp, hostType, hostOp;
    // The pies show where op time goes, so IDLE (often most of the span) stays out of them.
    for (const FrameworkOpStatsRow &r : table.rows) {
        if (r.type == kIdleOpName)
            continue;
        (r.onDevice ? devType : hostType)[QString::fromStdString(r.type)] += r.totalSelfTimeUs;
        (r.onDevice ? devOp : hostOp)[QString::fromStdString(r.name)] += r.totalSelfTimeUs;
    }
    auto values = [](const std::map<QString, double> &m) {
        return std::vector<std::pair<QString, double>>(m.begin(), m.end());
    };
    m_deviceByType->setValues(values(devType));
    m_deviceByOp->setValues(values(devOp));
    m_hostByType->setValues(values(hostType));
    m_hostByOp->setValues(values(hostOp));
    if (table.rows.empty()) {
        m_status->setText(tr("No framework ops in this profile."));
        return;
    }
    size_t device = 0;
    for (const FrameworkOpStatsRow &r : table.rows)
        device += r.onDevice ? 1 : 0;
    // XProf keeps the top 500 ops of each side by self time: a capped side says so.
    const size_t host = table.rows.size() - device;
    auto side = [](size_t shown, size_t all, const QString &what) {
        return all > shown ? tr("top %L1 of %L2 %3").arg(shown).arg(all).arg(what)
                           : tr("%L1 %2").arg(shown).arg(what);
    };
    m_status->setText(tr("%1, %2%3%4")
                          .arg(side(device, table.deviceOps, tr("device ops")))
                          .arg(side(host, table.hostOps, tr("host ops")))
                          .arg(m_stats->deviceType.empty()
                                   ? QString()
                                   : QStringLiteral(" - ")
                                         + QString::fromStdString(m_stats->deviceType))
                          .arg(m_selectionOnly->isChecked() && m_state && m_state->area().valid()
                                   ? tr(" (selected area)")
                                   : QString()));
}

void FrameworkOpStatsPanel::exportCsv()
{
    exportTableCsv(this, *m_proxy, QStringLiteral("framework_op_stats.csv"));
}

} // namespace tracedesk::views
