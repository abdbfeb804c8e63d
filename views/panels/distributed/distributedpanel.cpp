#include "views/panels/distributed/distributedpanel.h"

#include "views/common/qtconvert.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/distributed/distributedtables.h"
#include "views/panels/distributed/rankbreakdownchart.h"
#include "views/panels/distributed/rankpickerdialog.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/io/runranks.h"

#include <algorithm>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::distributed;

namespace {

// Step names in numeric order when they are numbers ("2" before "10").
bool stepBefore(const std::string &a, const std::string &b)
{
    const bool na = !a.empty() && std::all_of(a.begin(), a.end(), ::isdigit);
    const bool nb = !b.empty() && std::all_of(b.begin(), b.end(), ::isdigit);
    if (na && nb && a.size() != b.size())
        return a.size() < b.size();
    return a < b;
}

QTableView *table(QStandardItemModel *model, QWidget *parent)
{
    QTableView *view = makeRowTable(model, parent);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return view;
}

// The time a collective or a step is shown with: a tenth of its span on either side.
std::pair<core::TimePs, core::TimePs> padded(core::TimePs start, core::TimePs end)
{
    const core::TimePs margin = std::max<core::TimePs>((end - start) / 10, 1000000);
    return {start - margin, end + margin};
}

} // namespace

DistributedPanel::DistributedPanel(QWidget *parent) : QWidget(parent)
{
    m_pages = new QStackedWidget(this);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_pages);
    m_reason = new NotApplicableView(
        tr("Distributed compares the ranks of one run; this profile has a single process — open "
           "a folder of rank traces (or drop several) to see their steps, communication and "
           "stragglers."),
        this);

    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    m_status = new QLabel(tr("No trace loaded."), content);
    m_notes = new QLabel(content);
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->hide();
    m_tabs = new QTabWidget(content);
    auto *header = new QHBoxLayout;
    m_ranksButton = new QPushButton(tr("Ranks on Timeline…"), content);
    m_ranksButton->setObjectName(QStringLiteral("distributedRanksButton"));
    m_ranksButton->setToolTip(tr("Choose which ranks of the run the timeline shows; this panel "
                                 "keeps summarising every rank"));
    m_ranksButton->setEnabled(false);
    m_status->setWordWrap(true);
    header->addWidget(m_status, 1);
    header->addWidget(m_ranksButton, 0, Qt::AlignTop);
    layout->addLayout(header);
    layout->addWidget(m_notes);
    layout->addWidget(m_tabs, 1);

    m_rankStepModel = new QStandardItemModel(this);
    m_stragglerModel = new QStandardItemModel(this);
    m_waitingModel = new QStandardItemModel(this);
    m_statsModel = new QStandardItemModel(this);

    // Ranks and steps.
    auto *stepsPage = new QWidget(m_tabs);
    auto *stepsLayout = new QVBoxLayout(stepsPage);
    auto *stepRow = new QHBoxLayout;
    m_stepLabel = new QLabel(stepsPage);
    m_slider = new QSlider(Qt::Horizontal, stepsPage);
    m_slider->setObjectName(QStringLiteral("distributedStepSlider"));
    m_alignButton = new QPushButton(tr("Align ranks at this step"), stepsPage);
    m_alignButton->setObjectName(QStringLiteral("distributedAlignButton"));
    m_alignButton->setToolTip(tr("Reopen the run with each rank moved so that the chosen step "
                                 "starts at the same time on every rank (for ranks whose "
                                 "clocks disagree)"));
    m_alignButton->setEnabled(false);
    stepRow->addWidget(m_stepLabel);
    stepRow->addWidget(m_slider, 1);
    stepRow->addWidget(m_alignButton);
    auto *split = new QSplitter(Qt::Horizontal, stepsPage);
    m_chart = new RankBreakdownChart(split);
    m_rankSteps = table(m_rankStepModel, split);
    split->addWidget(m_chart);
    split->addWidget(m_rankSteps);
    m_chart->setMinimumWidth(420);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({450, 550});
    stepsLayout->addLayout(stepRow);
    stepsLayout->addWidget(split, 1);
    m_tabs->addTab(stepsPage, tr("Ranks and steps"));

    // Stragglers.
    auto *straggle = new QSplitter(Qt::Horizontal, m_tabs);
    m_stragglers = table(m_stragglerModel, straggle);
    m_waiting = table(m_waitingModel, straggle);
    straggle->addWidget(m_stragglers);
    straggle->addWidget(m_waiting);
    m_waiting->setMinimumWidth(300);
    straggle->setStretchFactor(0, 3);
    straggle->setStretchFactor(1, 1);
    m_tabs->addTab(straggle, tr("Stragglers"));

    m_stats = table(m_statsModel, m_tabs);
    m_tabs->addTab(m_stats, tr("Collectives"));

    m_pages->addWidget(content);
    m_pages->addWidget(m_reason);

    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(250);
    connect(m_progressTimer, &QTimer::timeout, this, &DistributedPanel::showProgress);
    connect(m_ranksButton, &QPushButton::clicked, this, [this] { openRankPicker(); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int) { showStep(); });
    connect(m_alignButton, &QPushButton::clicked, this,
            [this] { emit alignRequested(m_alignButton->property("step").toString()); });
    connect(m_chart, &RankBreakdownChart::rankClicked, this,
            [this](int rank) { activateRank(rank); });
    onRowActivated(m_rankSteps, this, [this](const QModelIndex &i) { rankStepClicked(i); });
    onRowActivated(m_stragglers, this, [this](const QModelIndex &i) {
        const QVariant v = m_stragglerModel->item(i.row(), 0)->data(kSummaryIndexRole);
        if (i.column() == LastRankColumn && m_summary) {
            const int64_t rank = m_summary->collectives[v.toULongLong()].lastRank;
            for (size_t r = 0; r < m_summary->ranks.size(); ++r) {
                if (m_summary->ranks[r].rank == rank)
                    activateRank(int(r));
            }
            return;
        }
        activateCollective(v.toInt());
    });
    onRowActivated(m_waiting, this, [this](const QModelIndex &i) {
        const QVariant v = m_waitingModel->item(i.row(), 0)->data(kSummaryIndexRole);
        if (v.isValid())
            activateRank(v.toInt());
    });
    setSummary(nullptr);
}

DistributedPanel::~DistributedPanel() = default;

bool DistributedPanel::showsReason() const
{
    return m_pages->currentWidget() == m_reason;
}

QString DistributedPanel::reasonText() const
{
    return m_reason->reasonText();
}

QString DistributedPanel::statusText() const
{
    return m_status->text();
}

void DistributedPanel::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_progressTimer->stop();
    m_cache = std::move(cache);
    m_view.reset();
    setSummary(nullptr);
    if (!m_cache) {
        m_pages->setCurrentIndex(0);
        m_status->setText(tr("No trace loaded."));
        return;
    }
    // Without a summarizer only a merged run of ranks has a view; with one, even a trace of a
    // single rank may be part of a run (the summarizer finds out, on the worker).
    if (!m_summarizer && !isMergedRankRun(m_cache->trace())) {
        m_pages->setCurrentWidget(m_reason);
        return;
    }
    m_pages->setCurrentIndex(0);
    m_status->setText(tr("Computing..."));
    auto progress = std::make_shared<std::atomic<uint64_t>>(0);
    m_progress = progress;
    m_progressTimer->start();
    m_compute.start([c = m_cache, summarizer = m_summarizer, progress] {
        if (!summarizer)
            return std::make_shared<const RunView>(summarizeShownRun(c->trace()));
        return std::make_shared<const RunView>(
            summarizer(c->trace(), [progress](size_t done, size_t total) {
                progress->store(uint64_t(done) << 32 | uint64_t(total & 0xffffffffu));
            }));
    });
}

void DistributedPanel::showRun(std::shared_ptr<const Summary> run)
{
    m_compute.cancel();
    m_progressTimer->stop();
    m_cache.reset();
    if (!run) {
        setAnalyses(nullptr);
        return;
    }
    auto view = std::make_shared<RunView>();
    view->partial = true;
    view->shownHosts.assign(run->ranks.size(), std::string());
    view->run = std::move(run);
    m_pages->setCurrentIndex(0);
    onComputed(std::move(view));
}

void DistributedPanel::showProgress()
{
    const uint64_t packed = m_progress ? m_progress->load() : 0;
    const auto done = qulonglong(packed >> 32), total = qulonglong(packed & 0xffffffffu);
    if (total > 0 && m_compute.busy())
        m_status->setText(tr("The timeline shows part of the run: summarising all %1 ranks one at "
                             "a time… %2 of %1 done")
                              .arg(total)
                              .arg(done));
}

void DistributedPanel::onComputed(std::shared_ptr<const RunView> view)
{
    m_progressTimer->stop();
    if (!view || !view->run) {
        m_view.reset();
        setSummary(nullptr);
        m_pages->setCurrentWidget(m_reason);
    } else {
        m_view = std::move(view);
        setSummary(m_view->run);
    }
    emit computed();
}

void DistributedPanel::markRanksOffTimeline()
{
    if (!m_view || !m_view->partial)
        return;
    // Rows of ranks the timeline lacks are dimmed: their clicks cannot reach it.
    const QBrush dim = palette().brush(QPalette::PlaceholderText);
    for (int row = 0; row < m_rankStepModel->rowCount(); ++row) {
        const QStandardItem *first = m_rankStepModel->item(row, 0);
        const int rank = first ? first->data(kSummaryIndexRole).toInt() : -1;
        if (rank < 0 || m_view->shownIndex(size_t(rank)) >= 0)
            continue;
        for (int column = 0; column < m_rankStepModel->columnCount(); ++column) {
            if (QStandardItem *item = m_rankStepModel->item(row, column)) {
                item->setForeground(dim);
                item->setToolTip(tr("Not on the timeline (Ranks on Timeline… adds it)"));
            }
        }
    }
}

QString DistributedPanel::timelineNote() const
{
    if (!m_view || !m_view->partial)
        return {};
    const std::vector<int64_t> shown = m_view->shownRanks();
    // A run opened from its rank summaries has no trace on the timeline yet.
    if (shown.empty())
        return tr("No rank on the timeline yet (Ranks on Timeline… loads some); the tables "
                  "cover all %1 ranks")
            .arg(m_view->run->ranks.size());
    return tr("Timeline: %1 of %2 ranks (%3); the tables cover every rank")
        .arg(shown.size())
        .arg(m_view->run->ranks.size())
        .arg(QString::fromStdString(core::formatRankList(shown)));
}

RankPickerDialog *DistributedPanel::openRankPicker()
{
    if (!m_view || !m_view->run)
        return nullptr;
    std::vector<RankChoice> choices;
    const std::vector<int64_t> shown = m_view->shownRanks();
    for (const RankSummary &r : m_view->run->ranks) {
        RankChoice c;
        c.rank = r.rank;
        c.shown = std::find(shown.begin(), shown.end(), r.rank) != shown.end();
        for (const Straggler &s : m_view->run->stragglers) {
            if (s.rank == r.rank && s.waitingCaused > 0)
                c.detail = tr("caused %1 ms of waiting")
                               .arg(double(s.waitingCaused) / 1e9, 0, 'f', 3);
        }
        choices.push_back(std::move(c));
    }
    auto *dialog = new RankPickerDialog(std::move(choices), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        QList<qint64> ranks;
        for (int64_t r : dialog->chosenRanks())
            ranks << qint64(r);
        if (!ranks.isEmpty())
            emit ranksRequested(ranks);
    });
    dialog->open();
    return dialog;
}

void DistributedPanel::setSummary(std::shared_ptr<const Summary> summary)
{
    m_summary = std::move(summary);
    m_steps.clear();
    if (m_summary) {
        for (const RankSummary &r : m_summary->ranks) {
            for (const RankStep &s : r.steps) {
                if (std::find(m_steps.begin(), m_steps.end(), s.name) == m_steps.end())
                    m_steps.push_back(s.name);
            }
        }
        std::sort(m_steps.begin(), m_steps.end(), stepBefore);
        size_t matched = 0;
        for (const MatchedCollective &c : m_summary->collectives)
            matched += c.ranks.size() == m_summary->ranks.size() ? 1 : 0;
        QString status = countOf(m_summary->ranks.size(), "rank", "ranks") + QStringLiteral(", ")
                         + countOf(m_steps.size(), "step", "steps") + QStringLiteral(", ")
                         + countOf(m_summary->collectives.size(), "collective", "collectives");
        if (!m_summary->collectives.empty())
            status += tr(" (%1 on every rank)").arg(matched);
        if (!m_summary->stragglers.empty() && m_summary->stragglers.front().waitingCaused > 0)
            status += tr(" · top straggler: rank %1").arg(m_summary->stragglers.front().rank);
        if (const QString note = timelineNote(); !note.isEmpty())
            status += QStringLiteral("\n") + note;
        m_status->setText(status);
        m_baseStatus = status;
        QStringList notes;
        for (const RankError &e : m_summary->errors)
            notes << tr("Error: %1: %2").arg(QString::fromStdString(e.file),
                                             QString::fromStdString(e.message));
        for (const std::string &w : m_summary->warnings)
            notes << tr("Note: %1").arg(QString::fromStdString(w));
        m_notes->setText(notes.join('\n'));
        m_notes->setVisible(!notes.isEmpty());
        fillStragglers(m_stragglerModel, *m_summary);
        fillWaitingRanks(m_waitingModel, *m_summary);
        fillCollectiveStats(m_statsModel, *m_summary);
    } else {
        m_notes->hide();
        m_stragglerModel->clear();
        m_waitingModel->clear();
        m_statsModel->clear();
    }
    m_ranksButton->setEnabled(m_summary && m_summary->ranks.size() > 1);
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, int(m_steps.size()));
    m_slider->setValue(m_steps.size() == 1 ? 1 : 0);
    m_slider->setEnabled(m_steps.size() > 1);
    m_slider->setVisible(m_steps.size() > 1);
    showStep();
    for (QTableView *t : {m_stragglers, m_waiting, m_stats})
        t->resizeColumnsToContents();
}

void DistributedPanel::setStepChoice(int choice)
{
    m_slider->setValue(choice);
}

void DistributedPanel::showStep()
{
    const int choice = m_slider->value();
    const std::string step = choice > 0 && choice <= int(m_steps.size())
                                 ? m_steps[size_t(choice - 1)]
                                 : std::string();
    m_stepLabel->setText(step.empty() ? tr("Step: all steps")
                                      : tr("Step: %1").arg(QString::fromStdString(step)));
    m_alignButton->setEnabled(!step.empty());
    m_alignButton->setProperty("step", QString::fromStdString(step));
    m_chart->show(m_summary.get(), step);
    if (m_summary)
        fillRankSteps(m_rankStepModel, *m_summary, step);
    else
        m_rankStepModel->clear();
    markRanksOffTimeline();
    m_rankSteps->resizeColumnsToContents();
}

void DistributedPanel::rankStepClicked(const QModelIndex &index)
{
    const QStandardItem *first = m_rankStepModel->item(index.row(), 0);
    if (!first)
        return;
    const int rank = first->data(kSummaryIndexRole).toInt();
    if (index.column() == RankColumn)
        activateRank(rank);
    else
        activateStep(rank, first->data(kStepIndexRole).toInt());
}

void DistributedPanel::activateRank(int rankIndex)
{
    if (!m_summary || !m_view || rankIndex < 0 || rankIndex >= int(m_summary->ranks.size()))
        return;
    const std::string &host = m_view->shownHosts[size_t(rankIndex)];
    if (host.empty()) {
        m_status->setText(m_baseStatus + QLatin1Char('\n')
                          + tr("Rank %1 is not on the timeline; add it with Ranks on Timeline…")
                                .arg(m_summary->ranks[size_t(rankIndex)].rank));
        return;
    }
    emit hostActivated(QString::fromStdString(host));
}

void DistributedPanel::activateStep(int rankIndex, int stepIndex)
{
    if (!m_summary || rankIndex < 0 || rankIndex >= int(m_summary->ranks.size()))
        return;
    const RankSummary &rank = m_summary->ranks[size_t(rankIndex)];
    if (stepIndex < 0 || stepIndex >= int(rank.steps.size()))
        return;
    const std::string &name = rank.steps[size_t(stepIndex)].name;
    // The step on every rank the timeline holds: its span covers them all, each rank's marker
    // is outlined (the shown summary's refs and times are the timeline's).
    if (!m_view || !m_view->shown)
        return;
    auto refs = std::make_shared<std::vector<core::SliceRef>>();
    core::TimePs start = 0, end = 0;
    bool any = false;
    for (const RankSummary &r : m_view->shown->ranks) {
        for (const RankStep &s : r.steps) {
            if (s.name != name)
                continue;
            start = any ? std::min(start, s.start + r.clockShift) : s.start + r.clockShift;
            end = any ? std::max(end, s.end + r.clockShift) : s.end + r.clockShift;
            any = true;
            if (s.hasMarker)
                refs->push_back(s.marker);
        }
    }
    if (!any)
        return;
    const auto [t0, t1] = padded(start, end);
    const QString label = m_view->partial ? tr("Step %1 on the ranks on the timeline")
                                          : tr("Step %1 on every rank");
    emit rangeActivated(t0, t1, label.arg(QString::fromStdString(name)), std::move(refs));
}

void DistributedPanel::activateCollective(int collectiveIndex)
{
    if (!m_summary || !m_view || collectiveIndex < 0
        || collectiveIndex >= int(m_summary->collectives.size()))
        return;
    const MatchedCollective *shown = m_view->shownCollective(size_t(collectiveIndex));
    if (!shown)
        return;
    const MatchedCollective &c = *shown;
    auto refs = std::make_shared<std::vector<core::SliceRef>>(c.refs);
    const auto [t0, t1] = padded(c.firstStart, c.lastEnd);
    emit rangeActivated(t0, t1,
                        tr("%1 #%2 on %3")
                            .arg(QString::fromStdString(c.name))
                            .arg(c.occurrence)
                            .arg(countOf(c.ranks.size(), "rank", "ranks")),
                        std::move(refs));
}

} // namespace tracedesk::views
