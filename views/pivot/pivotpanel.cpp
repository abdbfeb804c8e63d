#include "views/pivot/pivotpanel.h"

#include "views/common/qtconvert.h"
#include "views/panels/common/panellinks.h"
#include "views/pivot/pivottreemodel.h"
#include "views/timeline/timelinestate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace tracedesk::views {

namespace {

constexpr int kNoLevel = -1;

using PivotOutcome = core::Result<core::PivotResult>;

} // namespace

PivotPanel::PivotPanel(QWidget *parent)
    : QWidget(parent)
    , m_argKey(new QLineEdit)
    , m_selectionOnly(new QCheckBox(tr("Selection only")))
    , m_export(new QPushButton(tr("Export CSV…")))
    , m_status(new QLabel)
    , m_tree(new QTreeView)
    , m_model(new PivotTreeModel(this))
{
    // A pivot of every slice frees large scratch: return it once done.
    m_job.setReleaseMemoryAfterRun(true);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Group by")));
    for (int l = 0; l < kLevels; ++l) {
        auto *combo = new QComboBox;
        combo->setObjectName(QStringLiteral("pivotLevel%1").arg(l + 1));
        if (l > 0)
            combo->addItem(tr("—"), kNoLevel);
        combo->addItem(tr("Name"), int(core::PivotKeyKind::Name));
        combo->addItem(tr("Category"), int(core::PivotKeyKind::Category));
        combo->addItem(tr("Track"), int(core::PivotKeyKind::Track));
        combo->addItem(tr("Arg"), int(core::PivotKeyKind::Arg));
        m_level[l] = combo;
        if (l > 0)
            bar->addWidget(new QLabel(QStringLiteral("›")));
        bar->addWidget(combo);
        connect(combo, &QComboBox::activated, this, [this] {
            m_levelsChosen = true;
            recompute();
        });
    }
    m_argKey->setObjectName(QStringLiteral("pivotArgKey"));
    m_argKey->setPlaceholderText(tr("arg key, e.g. stream"));
    m_argKey->setClearButtonEnabled(true);
    m_argKey->setMaximumWidth(220);
    connect(m_argKey, &QLineEdit::editingFinished, this, &PivotPanel::recompute);
    bar->addSpacing(8);
    bar->addWidget(new QLabel(tr("Arg key")));
    bar->addWidget(m_argKey);
    bar->addWidget(m_selectionOnly);
    bar->addStretch(1);
    bar->addWidget(m_status);
    bar->addWidget(m_export);
    m_selectionOnly->setEnabled(false);
    connect(m_selectionOnly, &QCheckBox::toggled, this, &PivotPanel::recompute);
    connect(m_export, &QPushButton::clicked, this, &PivotPanel::exportCsv);

    m_tree->setModel(m_model);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(PivotTreeModel::Total, Qt::DescendingOrder);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(PivotTreeModel::Group, QHeaderView::Stretch);
    for (int c = PivotTreeModel::Count; c < PivotTreeModel::ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // Numbers fit by the widest of the first rows (largest first): measuring 1000 rows per
    // column, Qt's default, held the GUI thread for 40 ms on a 10M-event profile.
    m_tree->header()->setResizeContentsPrecision(100);
    onRowActivated(m_tree, this, [this](const QModelIndex &index) { outlineGroup(index); });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_tree, 1);
    m_level[0]->setCurrentIndex(m_level[0]->findData(int(core::PivotKeyKind::Category)));
    m_level[1]->setCurrentIndex(m_level[1]->findData(int(core::PivotKeyKind::Name)));
    m_status->setText(tr("No trace"));
}

PivotPanel::~PivotPanel() = default;

void PivotPanel::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_cache = std::move(cache);
    // Category > Name by default; a profile without categories (XSpace) would show one
    // "(empty)" group, so it starts at Track > Name instead, unless levels were chosen.
    if (m_cache && !m_levelsChosen) {
        const core::Trace &trace = m_cache->trace();
        const bool categories =
            std::any_of(trace.kinds.begin(), trace.kinds.end(), [](const core::EventKind &k) {
                return k.category != core::kEmptyString;
            });
        const auto first = categories ? core::PivotKeyKind::Category : core::PivotKeyKind::Track;
        m_level[0]->setCurrentIndex(m_level[0]->findData(int(first)));
        m_level[1]->setCurrentIndex(m_level[1]->findData(int(core::PivotKeyKind::Name)));
    }
    recompute();
}

void PivotPanel::setTimelineState(TimelineState *state)
{
    followSelection(&m_state, state, m_selectionOnly, this, [this] { recompute(); });
}

void PivotPanel::setSelectionOnly(bool on)
{
    m_selectionOnly->setChecked(on);
}

void PivotPanel::setLevels(const std::vector<core::PivotKey> &levels)
{
    m_levelsChosen = true;
    for (int l = 0; l < kLevels; ++l) {
        const int kind = l < int(levels.size()) ? int(levels[size_t(l)].kind) : kNoLevel;
        m_level[l]->setCurrentIndex(std::max(0, m_level[l]->findData(kind)));
        if (l < int(levels.size()) && levels[size_t(l)].kind == core::PivotKeyKind::Arg)
            m_argKey->setText(QString::fromStdString(levels[size_t(l)].arg));
    }
    recompute();
}

std::vector<core::PivotKey> PivotPanel::levels() const
{
    std::vector<core::PivotKey> out;
    const std::string arg = m_argKey->text().trimmed().toStdString();
    for (QComboBox *combo : m_level) {
        const int kind = combo->currentData().toInt();
        if (kind == kNoLevel)
            continue;
        // An arg level without a key groups nothing; it is left out until one is typed.
        if (kind == int(core::PivotKeyKind::Arg) && arg.empty())
            continue;
        out.push_back({core::PivotKeyKind(kind), kind == int(core::PivotKeyKind::Arg) ? arg : ""});
    }
    return out;
}

void PivotPanel::setKeptSlicesLimit(uint64_t limit)
{
    m_keptSlicesLimit = limit;
    recompute();
}

void PivotPanel::recompute()
{
    m_outlineJob.stop();
    if (!m_cache) {
        m_job.stop();
        m_computing = false;
        m_model->setResult(nullptr, nullptr);
        m_status->setText(tr("No trace"));
        return;
    }
    core::PivotOptions options;
    options.levels = levels();
    options.keepSlicesLimit = m_keptSlicesLimit;
    const bool selectionOnly = m_selectionOnly->isChecked() && m_state;
    if (selectionOnly) {
        const AreaRange &area = m_state->area();
        if (!area.valid()) {
            m_job.stop();
            m_computing = false;
            m_model->setResult(nullptr, nullptr);
            m_status->setText(tr("Select an area on the timeline"));
            emit computed();
            return;
        }
        options.area = core::AreaSelection{area.tracks, area.time.t0, area.time.t1};
    }
    m_computing = true;
    m_status->setText(tr("Computing…"));
    core::TracePtr trace = m_cache->tracePtr();
    const std::atomic<bool> *cancel = m_job.cancelFlag();
    m_job.run<PivotOutcome>(
        this,
        [trace, options, cancel]() mutable {
            options.cancel = cancel;
            return core::computePivot(*trace, options);
        },
        [this, trace, selectionOnly](PivotOutcome outcome) {
            m_computing = false;
            if (!outcome) {
                m_status->setText(QString::fromStdString(outcome.message()));
                emit computed();
                return;
            }
            auto result = std::make_shared<const core::PivotResult>(std::move(outcome).value());
            const size_t groups = result->nodes.size() - 1;
            const uint64_t slices = result->root().stats.count;
            m_model->setResult(trace, std::move(result));
            m_status->setText(tr("%1 slices · %2 groups · %3")
                                  .arg(countText(slices), countText(groups),
                                       selectionOnly ? tr("selection") : tr("whole trace")));
            emit computed();
        });
}

void PivotPanel::outlineGroup(const QModelIndex &index)
{
    const auto result = m_model->result();
    const core::TracePtr trace = m_model->trace();
    if (!result || !trace || !m_state || !index.isValid())
        return;
    const uint32_t node = m_model->nodeOf(index);
    const QString label = m_model->labelOf(node);
    using Highlights = TimelineState::Highlights;
    m_outlineJob.run<Highlights>(
        this,
        [result, trace, node, label] {
            const uint64_t total = result->nodes[node].stats.count;
            // A pivot of a very large scope keeps no slices: its group is found by a walk.
            if (!result->slicesKept()) {
                auto found = core::findPivotSlices(*trace, *result, node, kMaxOutlined);
                auto refs = std::make_shared<std::vector<core::SliceRef>>(
                    found ? std::move(found).value() : std::vector<core::SliceRef>{});
                return Highlights{label, std::move(refs), total, nullptr};
            }
            auto refs = std::make_shared<std::vector<core::SliceRef>>(result->slicesOf(node));
            auto byStart = [&](const core::SliceRef &a, const core::SliceRef &b) {
                const core::TimePs sa = trace->start(a), sb = trace->start(b);
                if (sa != sb)
                    return sa < sb;
                return std::tie(a.track, a.row, a.index) < std::tie(b.track, b.row, b.index);
            };
            const size_t keep = std::min(refs->size(), kMaxOutlined);
            std::partial_sort(refs->begin(), refs->begin() + std::ptrdiff_t(keep), refs->end(),
                              byStart);
            refs->resize(keep);
            return Highlights{label, std::move(refs), total, nullptr};
        },
        [this, trace](Highlights found) {
            if (!m_state)
                return;
            const quint64 total = found.total;
            if (!found.empty()) {
                const core::SliceRef first = found.refs->front();
                const core::TimePs t = trace->start(first);
                if (t < m_state->t0() || t >= m_state->t1()) {
                    const core::TimePs span = m_state->t1() - m_state->t0();
                    m_state->setWindow(t - span / 4, t - span / 4 + span);
                }
            }
            m_state->setHighlights(std::move(found));
            emit outlined(total);
        });
}

QString PivotPanel::statusText() const
{
    return m_status->text();
}

QString PivotPanel::csv() const
{
    const auto result = m_model->result();
    if (!result || !m_model->trace())
        return {};
    return QString::fromStdString(core::pivotToCsv(*m_model->trace(), *result));
}

void PivotPanel::exportCsv()
{
    const QString text = csv();
    if (text.isEmpty())
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export pivot as CSV"), QStringLiteral("pivot.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text.toUtf8()) < 0) {
        QMessageBox::warning(this, tr("Export CSV"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
    }
}

} // namespace tracedesk::views
