#include "views/panels/kernelstats/kernelstatspanel.h"

#include "core/analysis/framework.h"
#include "core/analysis/toolfacts.h"

#include "views/common/namecolumn.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/kernelstats/kernelstatsmodel.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchkernelview.h"
#include "views/timeline/timelinestate.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tracedesk::views {

using namespace core::analysis;

KernelStatsPanel::KernelStatsPanel(QWidget *parent) : QWidget(parent)
{
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by kernel or op name"));
    m_filter->setClearButtonEnabled(true);
    m_selectionOnly = new QCheckBox(tr("Selection only"), this);
    m_selectionOnly->setToolTip(tr("Only kernels that start inside the timeline's selected area"));
    m_selectionOnly->setEnabled(false);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_status = new QLabel(tr("No profile"), this);

    m_model = new KernelStatsModel(this);
    m_proxy = makeTableProxy(m_model, KernelStatsModel::kSortRole, -1, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->sortByColumn(KernelStatsModel::TotalUs, Qt::DescendingOrder);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(90);
    m_table->setColumnWidth(KernelStatsModel::Rank, 50);
    m_table->setColumnWidth(KernelStatsModel::Op, 260);
    giveNameColumnTheRoom(m_table, KernelStatsModel::Kernel, 300);

    m_empty = new QLabel(tr("This profile has no GPU kernels.\nKernel stats need GPU device "
                            "planes with kernel launch details (kernel_details)."),
                         this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_table);
    m_stack->addWidget(m_empty);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_selectionOnly);
    bar->addWidget(m_export);
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new PyTorchKernelView(this);
    connect(m_pytorch, &PyTorchKernelView::opActivated, this, &KernelStatsPanel::opActivated);
    connect(m_pytorch, &PyTorchKernelView::computed, this, &KernelStatsPanel::computed);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    m_pages->setPageFor(
        [](const core::Trace &trace) { return core::analysis::readsGpuWorkByRole(trace); });
    auto *layout = new QVBoxLayout(classic);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_stack, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_selectionOnly, &QCheckBox::toggled, this, &KernelStatsPanel::recompute);
    connect(m_export, &QPushButton::clicked, this,
            [this] { exportTableCsv(this, *m_proxy, QStringLiteral("kernel_stats.csv")); });
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(KernelStatsModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
}

KernelStatsPanel::~KernelStatsPanel() = default;

QString KernelStatsPanel::notApplicableReason(const core::Trace &trace)
{
    if (core::analysis::hasGpuDevice(trace))
        return {};
    return tr("Kernel Stats lists GPU kernels; this profile has no GPU.");
}

void KernelStatsPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

void KernelStatsPanel::setTimelineState(TimelineState *state)
{
    followSelection(&m_state, state, m_selectionOnly, this, [this] { recompute(); });
}

QString KernelStatsPanel::statusText() const
{
    return m_status->text();
}

bool KernelStatsPanel::showsEmptyMessage() const
{
    return m_stack->currentWidget() == m_empty;
}

void KernelStatsPanel::recompute()
{
    m_compute.cancel();
    m_model->setReports({});
    m_stack->setCurrentWidget(m_table);
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    std::optional<core::analysis::TimeRange> range;
    if (m_selectionOnly->isChecked() && m_state && m_state->area().valid())
        range = core::analysis::TimeRange{m_state->area().time.t0, m_state->area().time.t1};
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr cache = m_cache;
    m_compute.start([cache, range]() -> KernelStatsDb {
        return range ? kernelStats(cache->trace(), range) : opStats(*cache)->kernelStats;
    });
}

void KernelStatsPanel::showKernels(KernelStatsDb db)
{
    const size_t n = db.reports.size();
    const size_t all = std::max(n, db.distinctRows);
    m_model->setReports(std::move(db.reports));
    m_stack->setCurrentWidget(n == 0 ? static_cast<QWidget *>(m_empty) : m_table);
    m_export->setEnabled(n > 0);
    if (n == 0)
        m_status->setText(tr("No GPU kernels"));
    else if (all > n)   // XProf's kernel stats keep the top 1000 rows by time: say so
        m_status->setText(tr("Top %L1 of %L2 kernel rows (by total time)").arg(n).arg(all));
    else
        m_status->setText(tr("%L1 kernel rows").arg(n));
    emit computed();
}

} // namespace tracedesk::views
